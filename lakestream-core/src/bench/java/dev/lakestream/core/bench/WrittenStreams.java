package dev.lakestream.core.bench;

import dev.lakestream.core.catalog.StreamInfo;
import java.util.List;

/** Streams written for the catch-up reads: how many entries each holds (its end offset), how many index records. */
@SuppressWarnings("ArrayRecordComponent") // a result holder, never compared or hashed
record WrittenStreams(List<StreamInfo> infos, long[] ends, long indexRecords, long objects) {}
