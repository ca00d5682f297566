package dev.lakestream.iceberg.schema;

/** Where the materializer finds the schema versions of a topic. */
public interface SchemaSource {

    /**
     * The schema of {@code schemaId} ({@code tenant/namespace/topic}, partitions share it) at {@code version};
     * {@code version == null} asks for what a message without a schema version was written with: the latest
     * version when the topic has one, else {@link TopicSchema#BYTES}.
     *
     * @throws SchemaUnavailableException when the store cannot be read or the version does not exist
     */
    TopicSchema schema(String schemaId, Long version) throws SchemaUnavailableException;
}
