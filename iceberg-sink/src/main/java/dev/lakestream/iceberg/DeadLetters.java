package dev.lakestream.iceberg;

import dev.lakestream.iceberg.schema.MessagePosition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where messages that cannot be decoded go: the log {@value #LOGGER} (one WARN line per message with its topic,
 * position, stream offset and reason) and a counter in the topic's status. The bytes stay in the stream, where the
 * position finds them (until retention trims it). A message is logged again if its range is materialized again
 * after a failure (at-least-once for this log; the table itself is exactly-once).
 */
public interface DeadLetters {

    String LOGGER = "dev.lakestream.iceberg.deadletters";

    /**
     * Records one message (or whole entry) that could not be materialized, and why.
     *
     * @param batchIndex the message's index in its batch, -1 when not batched or when the whole entry failed
     */
    void add(TopicRef topic, MessagePosition position, int batchIndex, String reason);

    /** The default sink: the log. */
    static DeadLetters log() {
        Logger log = LoggerFactory.getLogger(LOGGER);
        return (topic, p, batchIndex, reason) -> log.warn(
                "dead letter: topic={} ledger={} entry={} batchIndex={} streamOffset={} reason={}",
                topic,
                p.ledgerId(),
                p.entryId(),
                batchIndex,
                p.offset(),
                reason);
    }
}
