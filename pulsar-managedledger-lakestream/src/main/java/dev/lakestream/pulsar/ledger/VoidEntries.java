package dev.lakestream.pulsar.ledger;

import dev.lakestream.core.log.LogEntry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.apache.pulsar.common.api.proto.MarkerType;
import org.apache.pulsar.common.api.proto.MessageMetadata;
import org.apache.pulsar.common.protocol.Commands;

/**
 * What a void entry (a stale owner's commit that landed after the new owner sealed the stream, docs/layout.md §5) is
 * to Pulsar: a server-only marker with no payload. Its position exists, as every offset of the stream does; the
 * dispatcher acknowledges such a marker without delivering it, and compaction, deduplication and the transaction
 * buffer pass over it, so nobody sees the stale commit's messages.
 */
final class VoidEntries {

    /** The producer name the marker carries (a required field of Pulsar's message metadata). */
    static final String PRODUCER = "lakestream-void";

    private VoidEntries() {}

    /** The marker's bytes (metadata, no payload) for the void entry {@code e}. */
    static ByteBuf marker(LogEntry e) {
        MessageMetadata md = new MessageMetadata()
                .setProducerName(PRODUCER)
                .setSequenceId(-1)
                .setPublishTime(e.timestamp())
                .setMarkerType(MarkerType.UNKNOWN_MARKER.getValue());
        return Commands.serializeMetadataAndPayload(Commands.ChecksumType.None, md, Unpooled.EMPTY_BUFFER);
    }
}
