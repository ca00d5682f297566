package dev.lakestream.iceberg.pulsar;

import java.util.Map;

/**
 * One Pulsar message unpacked from a managed-ledger entry, as a producer sent it (payload uncompressed).
 *
 * @param batchIndex index in its batch, or {@code -1} for a message sent without batching
 * @param key the partition key as Pulsar keeps it (base64 text when {@code keyBase64}), or null
 * @param keyBase64 whether the key was set as bytes and is kept base64-encoded
 * @param properties the message properties (insertion order)
 * @param publishTime the producer's publish time, ms since the epoch
 * @param eventTime the event time in ms, or null when unset (Pulsar's 0)
 * @param producerName the producer's name
 * @param sequenceId the message's sequence id
 * @param schemaVersion the schema version the payload was written with, or null (no schema / the topic's first)
 * @param nullValue whether the producer sent a null value (the payload is then empty)
 * @param payload the value bytes
 */
public record PulsarMessage(
        int batchIndex,
        String key,
        boolean keyBase64,
        Map<String, String> properties,
        long publishTime,
        Long eventTime,
        String producerName,
        long sequenceId,
        Long schemaVersion,
        boolean nullValue,
        @SuppressWarnings("ArrayRecordComponent") // a message body; records are never compared or hashed
        byte[] payload) {}
