package dev.lakestream.segments;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Page compression for segments, without Hadoop: parquet-hadoop's own codec factory builds its codecs through Hadoop's
 * {@code CompressionCodec} classes. ZSTD goes through zstd-jni (which parquet-hadoop depends on, and the broker ships);
 * UNCOMPRESSED is the identity. Other codecs fail, naming themselves: segments are written with these two only.
 */
// BytesInput.toByteArray is deprecated for its copy; zstd-jni takes arrays, and pages come as arrays here anyway.
@SuppressWarnings("deprecation")
final class SegmentCodecs implements CompressionCodecFactory {

    private final int zstdLevel;

    SegmentCodecs(int zstdLevel) {
        this.zstdLevel = zstdLevel;
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED ->
                new Compressor(codec) {
                    @Override
                    public BytesInput compress(BytesInput bytes) {
                        return bytes;
                    }
                };
            case ZSTD ->
                new Compressor(codec) {
                    @Override
                    public BytesInput compress(BytesInput bytes) throws IOException {
                        return BytesInput.from(Zstd.compress(bytes.toByteArray(), zstdLevel));
                    }
                };
            default -> throw unsupported(codec);
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED ->
                new Decompressor() {
                    @Override
                    public BytesInput decompress(BytesInput bytes, int decompressedSize) {
                        return bytes;
                    }

                    @Override
                    public void decompress(ByteBuffer in, int compressedSize, ByteBuffer out, int decompressedSize) {
                        ByteBuffer src = in.duplicate();
                        src.limit(src.position() + compressedSize);
                        out.put(src);
                    }
                };
            case ZSTD ->
                new Decompressor() {
                    @Override
                    public BytesInput decompress(BytesInput bytes, int decompressedSize) throws IOException {
                        // The page's bytes as they were fetched, without the copy toByteArray() makes.
                        ByteBuffer in = bytes.toByteBuffer();
                        byte[] src;
                        int srcOffset;
                        if (in.hasArray()) {
                            src = in.array();
                            srcOffset = in.arrayOffset() + in.position();
                        } else {
                            src = new byte[in.remaining()];
                            in.duplicate().get(src);
                            srcOffset = 0;
                        }
                        byte[] out = new byte[decompressedSize];
                        long n = Zstd.decompressByteArray(out, 0, decompressedSize, src, srcOffset, in.remaining());
                        if (Zstd.isError(n)) {
                            throw new IOException("zstd page does not decompress: " + Zstd.getErrorName(n));
                        }
                        if (n != decompressedSize) {
                            throw new IOException("zstd page of " + n + " bytes, its header says " + decompressedSize);
                        }
                        return BytesInput.from(out);
                    }

                    @Override
                    public void decompress(ByteBuffer in, int compressedSize, ByteBuffer out, int decompressedSize)
                            throws IOException {
                        byte[] src = new byte[compressedSize];
                        in.duplicate().get(src);
                        out.put(decompress(BytesInput.from(src), decompressedSize)
                                .toByteArray());
                    }
                };
            default -> throw unsupported(codec);
        };
    }

    @Override
    public void release() {}

    private static UnsupportedOperationException unsupported(CompressionCodecName codec) {
        return new UnsupportedOperationException("Parquet codec " + codec + " is not supported by segments (they are"
                + " written ZSTD or UNCOMPRESSED)");
    }

    private abstract static class Compressor implements BytesInputCompressor {
        private final CompressionCodecName codec;

        Compressor(CompressionCodecName codec) {
            this.codec = codec;
        }

        @Override
        public CompressionCodecName getCodecName() {
            return codec;
        }

        @Override
        public void release() {}
    }

    private abstract static class Decompressor implements BytesInputDecompressor {
        @Override
        public void release() {}
    }
}
