package dev.lakestream.core.objectstore;

import java.time.Instant;

/** What a store knows about one object without reading it. */
public record ObjectInfo(String key, long size, Instant lastModified) {}
