// SPDX-License-Identifier: LGPL-2.1-or-later
/// A small fixed pool of worker threads for splitting one frame's rows into
/// bands. `run(bands:context:_:)` calls `work(context, i)` for `i` in `0..<bands` (band 0 on the
/// calling thread) and returns when all are done. Threads start on first use
/// and are joined when the pool is released; nothing is allocated per call.
import Glibc

@_spi(Bench) public final class WorkerPool {
    private let shared = PoolShared()
    private var threads: [pthread_t] = []

    @_spi(Bench) public init() {}

    deinit {
        pthread_mutex_lock(shared.mutex)
        shared.stopping = true
        pthread_cond_broadcast(shared.wake)
        pthread_mutex_unlock(shared.mutex)
        for t in threads { pthread_join(t, nil) }
    }

    /// The number of threads to use for `requested` (0 = one per online core).
    static func threadCount(_ requested: Int) -> Int {
        if requested > 0 { return min(requested, 64) }
        return max(1, min(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 64))
    }

    /// A band function: `work(context, band)`; a plain function pointer and a
    /// context pointer, so calling it allocates nothing.
    @_spi(Bench) public typealias Work = @convention(c) (UnsafeMutableRawPointer, Int) -> Void

    /// `pool.run(bands:context:_:)`, or band 0 on this thread when there is no pool.
    static func run(_ pool: WorkerPool?, bands n: Int, context: UnsafeMutableRawPointer, _ work: Work) {
        if let pool { pool.run(bands: n, context: context, work) } else { work(context, 0) }
    }

    @_spi(Bench) public func run(bands n: Int, context: UnsafeMutableRawPointer, _ work: Work) {
        if n <= 1 { work(context, 0); return }
        while threads.count < n - 1 && spawn(index: threads.count + 1) {}
        let n = min(n, threads.count + 1)
        let s = shared
        pthread_mutex_lock(s.mutex)
        s.work = work
        s.context = context
        s.bands = n
        s.pending = n - 1
        s.generation &+= 1
        pthread_cond_broadcast(s.wake)
        pthread_mutex_unlock(s.mutex)
        work(context, 0)
        pthread_mutex_lock(s.mutex)
        while s.pending > 0 { pthread_cond_wait(s.done, s.mutex) }
        s.work = nil
        s.context = nil
        pthread_mutex_unlock(s.mutex)
    }

    private func spawn(index: Int) -> Bool {
        let ctx = Unmanaged.passRetained(WorkerContext(shared: shared, index: index, generation: shared.generation)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { raw in
            let c = Unmanaged<WorkerContext>.fromOpaque(raw!).takeRetainedValue()
            nameThisThread("dm-worker-\(c.index % 1000)")
            c.shared.loop(index: c.index, seen: c.generation)
            return nil
        }, ctx)
        if rc != 0 { Unmanaged<WorkerContext>.fromOpaque(ctx).release(); return false }
        threads.append(t)
        return true
    }
}

/// Names the calling thread (what top -H, perf and gdb show; at most 15
/// bytes) through /proc/thread-self/comm: pthread_setname_np is not in
/// Swift's Glibc module. Best effort: a kernel without it leaves the name.
private func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// State shared by the pool and its threads (the threads never hold the pool
/// itself, so releasing the pool stops them).
private final class PoolShared {
    typealias Work = WorkerPool.Work
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    let wake = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    let done = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    var generation = 0
    var pending = 0
    var bands = 0
    var stopping = false
    var work: Work?
    var context: UnsafeMutableRawPointer?

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wake, nil)
        pthread_cond_init(done, nil)
    }
    deinit {
        pthread_cond_destroy(wake); pthread_cond_destroy(done); pthread_mutex_destroy(mutex)
        wake.deallocate(); done.deallocate(); mutex.deallocate()
    }

    /// `seen`: the generation when the thread was created (a job published
    /// before the thread got here is still picked up).
    func loop(index: Int, seen start: Int) {
        pthread_mutex_lock(mutex)
        var seen = start
        while true {
            while generation == seen && !stopping { pthread_cond_wait(wake, mutex) }
            if stopping { break }
            seen = generation
            let mine = index < bands
            let job = mine ? work : nil, ctx = context
            pthread_mutex_unlock(mutex)
            if let job, let ctx { job(ctx, index) }
            pthread_mutex_lock(mutex)
            if mine {
                pending -= 1
                if pending == 0 { pthread_cond_signal(done) }
            }
        }
        pthread_mutex_unlock(mutex)
    }
}

private final class WorkerContext {
    let shared: PoolShared
    let index: Int
    let generation: Int
    init(shared: PoolShared, index: Int, generation: Int) {
        self.shared = shared; self.index = index; self.generation = generation
    }
}
