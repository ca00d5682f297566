package dev.lakestream.core.wal;

/** Told once per index commit that a stream's end offset moved, e.g. to wake readers waiting at its end. */
@FunctionalInterface
public interface CommitListener {

    CommitListener NONE = (streamId, endOffset) -> {};

    void committed(long streamId, long endOffset);
}
