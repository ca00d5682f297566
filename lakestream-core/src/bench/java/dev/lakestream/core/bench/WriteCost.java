package dev.lakestream.core.bench;

/** The request cost of a write run: WAL object PUTs per GiB of payload, metadata writes per WAL object. */
interface WriteCost {

    long puts();

    long payloadBytes();

    long metadataWrites();

    default double putsPerGib() {
        return puts() / (payloadBytes() / Figures.GIB);
    }

    default double metadataWritesPerObject() {
        return puts() == 0 ? Double.NaN : (double) metadataWrites() / puts();
    }
}
