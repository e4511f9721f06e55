/// The compositor's size-keyed tables: the column segments of the bicubic
/// upscale (README step 3), the aspect-fill tables of the background, the
/// per-band scratch rows. Rebuilt only when the sizes change.
extension MatteCompositor {
    mutating func prepare(sourceWidth sw: Int, sourceHeight sh: Int, width: Int, height: Int,
                          pixelStride: Int, bands: Int, background: RGBImageView?) {
        if columns.source != sw || columns.destination != width {
            columns.update(source: sw, destination: width)
            segmentStart.removeAll(keepingCapacity: true)
            segmentTaps.removeAll(keepingCapacity: true)
            columns.index.withUnsafeBufferPointer { ix in
                for x in 0..<width {
                    let j = 4 * x
                    let newSegment = x == 0 || ix[j] != ix[j - 4] || ix[j + 1] != ix[j - 3]
                        || ix[j + 2] != ix[j - 2] || ix[j + 3] != ix[j - 1]
                    if newSegment {
                        segmentStart.append(Int32(x))
                        segmentTaps.append(contentsOf: [ix[j], ix[j + 1], ix[j + 2], ix[j + 3]])
                    }
                }
            }
            segmentStart.append(Int32(width))
            let nseg = segmentStart.count - 1
            groupStart.removeAll(keepingCapacity: true)
            groupWeights.removeAll(keepingCapacity: true)
            segmentGroup.removeAll(keepingCapacity: true)
            for k in 0..<nseg {
                segmentGroup.append(Int32(groupStart.count))
                var x = Int(segmentStart[k])
                while x < Int(segmentStart[k + 1]) {
                    let n = min(4, Int(segmentStart[k + 1]) - x)
                    groupStart.append(Int32(x))
                    for t in 0..<4 {
                        var c = SIMD4<Float>(repeating: 0)
                        for i in 0..<n { c[i] = columns.weight[4 * (x + i) + t] }
                        groupWeights.append(c)
                    }
                    x += n
                }
            }
            segmentGroup.append(Int32(groupStart.count))
            segmentFrom = [Int32](repeating: Int32(nseg), count: sw)
            segmentTo = [Int32](repeating: -1, count: sw)
            var k = 0
            for c in 0..<sw {
                while k < nseg && Int(segmentTaps[4 * k + 3]) < c { k += 1 }
                segmentFrom[c] = Int32(k)
            }
            k = nseg - 1
            for c in stride(from: sw - 1, through: 0, by: -1) {
                while k >= 0 && Int(segmentTaps[4 * k]) > c { k -= 1 }
                segmentTo[c] = Int32(k)
            }
        }
        if rowSpan.count != 2 * sh { rowSpan = [Int32](repeating: 0, count: 2 * sh); rowMixed = [Int32](repeating: 0, count: sh) }
        if bandStart.count < bands + 1 { bandStart = [Int](repeating: 0, count: bands + 1) }
        rows.update(source: sh, destination: height)
        if scratch.count < bands { scratch += Array(repeating: BandScratch(), count: bands - scratch.count) }
        for b in 0..<bands {
            if scratch[b].vertical.count < sw {
                scratch[b].vertical = [Float](repeating: 0, count: sw)
                scratch[b].state = [RunKind](repeating: .zero, count: sw)
            }
            // (+ 3: the cubic stores four values per group of up to four columns)
            if scratch[b].matte.count < width + 3 { scratch[b].matte = [Float](repeating: 0, count: width + 3) }
            if scratch[b].runs.count < segmentStart.count + 1 {
                scratch[b].runs = [Run](repeating: Run(), count: segmentStart.count + 1)
            }
            if background != nil && scratch[b].background.count < width * pixelStride {
                scratch[b].background = [UInt8](repeating: 0, count: width * pixelStride)
            }
        }
        if let bg = background {
            let s = AspectFillTable.fillScale(sourceWidth: bg.width, sourceHeight: bg.height, width: width, height: height)
            if fillColumns.source != bg.width || fillColumns.destination != width || fillColumns.scale != s {
                fillColumns = AspectFillTable(source: bg.width, destination: width, scale: s)
            }
            if fillRows.source != bg.height || fillRows.destination != height || fillRows.scale != s {
                fillRows = AspectFillTable(source: bg.height, destination: height, scale: s)
            }
        }
    }
}
