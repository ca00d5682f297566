package dev.lakestream.core.metadata;

import java.util.List;
import java.util.Optional;

/**
 * Checks on keys and options that both store implementations make before doing any work, and the format of
 * sequence keys. The checks raise {@link InvalidKeyException} naming the store's address and the key.
 */
public final class MetadataKeys {

    /** The highest sequence counter, {@code 2^64 - 1} printed unsigned, as Oxia bounds its search with. */
    private static final String MAX_COUNTER = Long.toUnsignedString(-1L);

    private MetadataKeys() {}

    /** Rejects a null or empty key, one that is not valid UTF-16, or one under Oxia's internal prefix. */
    public static void checkKey(String address, String key) {
        if (key == null || key.isEmpty()) {
            throw new InvalidKeyException(address + ": the key must not be empty");
        }
        checkWellFormed(address, "key", key);
        if (key.startsWith(KeyOrder.INTERNAL_KEY_PREFIX)) {
            throw new InvalidKeyException(address + ": key '" + key + "' is under the reserved prefix '"
                    + KeyOrder.INTERNAL_KEY_PREFIX + "'");
        }
    }

    /** Rejects null range bounds and empty or malformed partition keys. Empty bounds are allowed. */
    public static void checkRange(
            String address, String startInclusive, String endExclusive, Optional<String> partitionKey) {
        if (startInclusive == null || endExclusive == null) {
            throw new InvalidKeyException(
                    address + ": range bounds must not be null (got [" + startInclusive + ", " + endExclusive + "))");
        }
        checkWellFormed(address, "range start", startInclusive);
        checkWellFormed(address, "range end", endExclusive);
        checkPartitionKey(address, startInclusive, partitionKey);
    }

    /** Rejects an empty or malformed partition key. */
    public static void checkPartitionKey(String address, String key, Optional<String> partitionKey) {
        if (partitionKey == null) {
            throw new InvalidKeyException(address + ": key '" + key + "': partitionKey must not be null");
        }
        if (partitionKey.isPresent()) {
            String p = partitionKey.get();
            if (p.isEmpty()) {
                throw new InvalidKeyException(address + ": key '" + key + "': the partition key must not be empty");
            }
            checkWellFormed(address, "partition key of '" + key + "'", p);
        }
    }

    /**
     * Checks a put: the key, the partition key, the expected version and, for a sequence-key put, that there
     * is a partition key, no expected version, a first delta {@code >= 1} and no negative delta.
     */
    public static void checkPut(String address, String key, byte[] value, PutOptions options) {
        checkKey(address, key);
        if (value == null) {
            throw new InvalidKeyException(
                    address + ": key '" + key + "': the value must not be null (use an empty array)");
        }
        if (options == null) {
            throw new InvalidKeyException(address + ": key '" + key + "': options must not be null");
        }
        checkPartitionKey(address, key, options.partitionKey());
        checkExpectedVersion(address, key, options.expectedVersionId());
        if (options.isSequenceKeyPut()) {
            if (options.partitionKey().isEmpty()) {
                throw new InvalidKeyException(address + ": sequence-key put of prefix '" + key
                        + "' needs a partition key (all keys of a sequence must live on one shard)");
            }
            if (options.expectedVersionId() != PutOptions.ANY_VERSION) {
                throw new InvalidKeyException(address + ": sequence-key put of prefix '" + key
                        + "' cannot have an expected version (the store picks a new key)");
            }
            List<Long> deltas = options.sequenceKeyDeltas();
            if (deltas.get(0) < 1) {
                throw new InvalidKeyException(address + ": sequence-key put of prefix '" + key
                        + "': the first delta must be >= 1, got " + deltas.get(0));
            }
            for (int i = 1; i < deltas.size(); i++) {
                if (deltas.get(i) < 0) {
                    throw new InvalidKeyException(address + ": sequence-key put of prefix '" + key + "': delta " + i
                            + " must be >= 0, got " + deltas.get(i));
                }
            }
        }
    }

    /** Checks a delete's key, partition key and expected version. */
    public static void checkDelete(String address, String key, DeleteOptions options) {
        checkKey(address, key);
        if (options == null) {
            throw new InvalidKeyException(address + ": key '" + key + "': options must not be null");
        }
        checkPartitionKey(address, key, options.partitionKey());
        checkExpectedVersion(address, key, options.expectedVersionId());
    }

    private static void checkExpectedVersion(String address, String key, long expected) {
        if (expected != PutOptions.ANY_VERSION && expected < PutOptions.ABSENT) {
            throw new InvalidKeyException(address + ": key '" + key + "': invalid expected version id " + expected
                    + " (use a version id >= 0, PutOptions.ABSENT or PutOptions.ANY_VERSION)");
        }
    }

    /** Checks a get's key and partition key (comparisons may name keys that do not exist). */
    public static void checkGet(String address, String key, GetOptions options) {
        checkKey(address, key);
        if (options == null) {
            throw new InvalidKeyException(address + ": key '" + key + "': options must not be null");
        }
        checkPartitionKey(address, key, options.partitionKey());
    }

    private static void checkWellFormed(String address, String what, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new InvalidKeyException(
                        address + ": " + what + " '" + s + "' is not valid Unicode (lone surrogate)");
            }
            if (Character.isLowSurrogate(c)) {
                throw new InvalidKeyException(
                        address + ": " + what + " '" + s + "' is not valid Unicode (lone surrogate)");
            }
        }
    }

    // ---- sequence keys ----

    /** {@code prefix + "-" + %020d(counter)}, the counter printed unsigned as Oxia does. */
    public static String appendCounter(String key, long counter) {
        String digits = Long.toUnsignedString(counter);
        StringBuilder sb = new StringBuilder(key.length() + 21).append(key).append('-');
        for (int i = digits.length(); i < 20; i++) {
            sb.append('0');
        }
        return sb.append(digits).toString();
    }

    /**
     * The key Oxia searches below to find the last key of a sequence: {@code prefix-18446744073709551615}.
     * The highest existing key strictly lower than it, if it starts with the prefix, carries the counters.
     */
    public static String sequenceSearchKey(String prefix) {
        return prefix + "-" + MAX_COUNTER;
    }

    /**
     * The key a sequence-key put assigns, given the highest key below {@link #sequenceSearchKey} (or null),
     * exactly as Oxia derives it: the counters of that key if it starts with the prefix, else zeros; each
     * plus its delta. Fails like Oxia when the last key has more counters than deltas are given.
     */
    public static String nextSequenceKey(String address, String prefix, String lastKeyBelow, List<Long> deltas) {
        String[] parts = new String[0];
        if (lastKeyBelow != null && lastKeyBelow.startsWith(prefix)) {
            String rest = lastKeyBelow.substring(prefix.length());
            String[] split = rest.split("-", -1);
            parts = java.util.Arrays.copyOfRange(split, 1, split.length);
        }
        if (parts.length > deltas.size()) {
            throw new InvalidKeyException(address + ": sequence-key put of prefix '" + prefix + "': the last key '"
                    + lastKeyBelow + "' has " + parts.length + " counters but only " + deltas.size()
                    + " deltas were given");
        }
        String key = prefix;
        for (int i = 0; i < deltas.size(); i++) {
            long last = 0;
            if (i < parts.length) {
                last = parseCounter(address, prefix, lastKeyBelow, parts[i]);
            }
            key = appendCounter(key, last + deltas.get(i));
        }
        return key;
    }

    private static long parseCounter(String address, String prefix, String lastKey, String part) {
        // Like Go's Sscanf("%020d"): up to 20 leading digits.
        int end = 0;
        while (end < part.length() && end < 20 && Character.isDigit(part.charAt(end)) && part.charAt(end) < 128) {
            end++;
        }
        if (end == 0) {
            throw new InvalidKeyException(address + ": sequence-key put of prefix '" + prefix + "': the last key '"
                    + lastKey + "' under the prefix is not a sequence key (counter '" + part + "')");
        }
        try {
            return Long.parseUnsignedLong(part.substring(0, end));
        } catch (NumberFormatException e) {
            throw new InvalidKeyException(
                    address + ": sequence-key put of prefix '" + prefix + "': counter '" + part + "' of '" + lastKey
                            + "' is out of range",
                    e);
        }
    }
}
