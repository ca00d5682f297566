package dev.lakestream.core.wal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** One stream's share of a {@link Batch}: its appends, in append order. */
final class StreamPart {

    private final long streamId;
    private final List<PendingAppend> appends;

    StreamPart(long streamId, int expectedAppends) {
        this.streamId = streamId;
        this.appends = new ArrayList<>(expectedAppends);
    }

    long streamId() {
        return streamId;
    }

    List<PendingAppend> appends() {
        return Collections.unmodifiableList(appends);
    }

    void add(PendingAppend append) {
        appends.add(append);
    }
}
