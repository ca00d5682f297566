package dev.lakestream.core.objectstore;

import java.util.List;

/**
 * One page of a listing.
 *
 * @param objects the objects of this page, in ascending key order
 * @param continuation token for the next page, or {@code null} when this is the last page
 */
public record ObjectListing(List<ObjectInfo> objects, String continuation) {

    public ObjectListing {
        objects = List.copyOf(objects);
    }

    public boolean hasMore() {
        return continuation != null;
    }
}
