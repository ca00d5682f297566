package dev.lakestream.segments;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * How segments are written.
 *
 * @param rowGroupPayloadBytes a row group ends before the entry that would take its payload past this (an entry bigger
 *     than this is a row group alone); what one seek fetches at most, but for such an entry
 * @param codec page compression, {@code ZSTD} or {@code UNCOMPRESSED}
 * @param zstdLevel the ZSTD level, when {@code codec} is ZSTD
 */
public record ParquetSegmentOptions(long rowGroupPayloadBytes, CompressionCodecName codec, int zstdLevel) {

    /** Row groups of up to 8 MiB of payload, ZSTD level 1 (docs/layout.md §2.5.1 says why). */
    public static final ParquetSegmentOptions DEFAULT =
            new ParquetSegmentOptions(8L << 20, CompressionCodecName.ZSTD, 1);

    public ParquetSegmentOptions {
        if (rowGroupPayloadBytes < 1) {
            throw new IllegalArgumentException("row groups need a positive payload size, not " + rowGroupPayloadBytes);
        }
        if (codec != CompressionCodecName.ZSTD && codec != CompressionCodecName.UNCOMPRESSED) {
            throw new IllegalArgumentException("segments are written ZSTD or UNCOMPRESSED, not " + codec);
        }
    }

    public ParquetSegmentOptions withRowGroupPayloadBytes(long bytes) {
        return new ParquetSegmentOptions(bytes, codec, zstdLevel);
    }

    public ParquetSegmentOptions withCodec(CompressionCodecName codec, int zstdLevel) {
        return new ParquetSegmentOptions(rowGroupPayloadBytes, codec, zstdLevel);
    }
}
