package dev.lakestream.core.log;

/**
 * The stream's writes are fenced for good: its permanent write fence {@code /stream-write-fences/<streamId>} exists
 * (placed by whoever is deleting the stream: an Ursa process, or this project's {@code StreamLog.deleteData}), so no
 * append to it is committed any more. Entries acknowledged before stay readable until the stream is purged.
 *
 * <p>A {@link StreamFencedException}: to a writer it means the same as losing the stream to a newer owner, stop
 * writing (the managed ledger maps both to Pulsar's {@code ManagedLedgerFencedException}); unlike an epoch fence it
 * is never lifted, so opening the stream for writing again is refused too.
 */
public class StreamWriteFencedException extends StreamFencedException {

    private final long streamId;
    private final String fenceKey;

    public StreamWriteFencedException(long streamId, String fenceKey, String message) {
        super(message);
        this.streamId = streamId;
        this.fenceKey = fenceKey;
    }

    public long streamId() {
        return streamId;
    }

    /** The metadata-store key of the fence record, {@code /stream-write-fences/<streamId>}. */
    public String fenceKey() {
        return fenceKey;
    }
}
