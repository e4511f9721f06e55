// SPDX-License-Identifier: LGPL-2.1-or-later
/// The compositor's size-keyed tables: the bicubic taps, the column segments
/// of the upscale (the upscale, `CompositorScratch.columnTables`), the
/// aspect-fill tables of the background, the per-band scratch rows. Rebuilt
/// only when the sizes change.
extension MatteCompositor {
    mutating func prepare(sourceWidth sw: Int, sourceHeight sh: Int, width: Int, height: Int,
                          pixelStride: Int, bands: Int, background: RGBImageView?) {
        columns.update(source: sw, destination: width)
        scratch.columnTables(columns, sourceWidth: sw, width: width)
        rows.update(source: sh, destination: height)
        scratch.reserve(sourceWidth: sw, sourceHeight: sh, width: width, pixelStride: pixelStride,
                        bands: bands, background: background != nil)
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
