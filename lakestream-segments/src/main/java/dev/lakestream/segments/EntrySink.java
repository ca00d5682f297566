package dev.lakestream.segments;

import org.apache.parquet.io.api.Binary;

/** Where {@link RowGroupDecoder} hands a row group's entries, in offset order. */
interface EntrySink {

    /** Whether no more entries are wanted: decoding stops before the next one. */
    boolean full();

    /** The next entry of the row group; {@code raw} is valid during the call only. */
    void offer(long offset, int records, Binary raw);
}
