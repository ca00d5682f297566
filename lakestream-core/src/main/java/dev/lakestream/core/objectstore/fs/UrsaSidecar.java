package dev.lakestream.core.objectstore.fs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;

/**
 * The checksum file Ursa's filesystem storage writes beside each object: {@code <file>.crc32c}, holding the CRC32C of
 * the object's bytes (the whole file) in decimal, nothing else. Its presence, not the object file's last bytes, says
 * that the file is Ursa's: all the object's bytes, no trailer.
 */
final class UrsaSidecar {

    /** The sidecar of {@code a/b} is {@code a/b.crc32c}. */
    static final String SUFFIX = ".crc32c";

    /** A decimal CRC32C is at most 11 characters ({@code -2147483648}); room for whitespace around it. */
    private static final int MAX_BYTES = 64;

    private UrsaSidecar() {}

    /** The sidecar of the object file {@code file} (it may not exist). */
    static Path of(Path file) {
        return file.resolveSibling(file.getFileName() + SUFFIX);
    }

    /**
     * Whether a file or key segment has a sidecar's name. Case-insensitive, so that on a case-insensitive filesystem
     * too no key's file can be another key's sidecar.
     */
    static boolean isSidecarName(String name) {
        return name.length() >= SUFFIX.length()
                && name.regionMatches(true, name.length() - SUFFIX.length(), SUFFIX, 0, SUFFIX.length());
    }

    /** Whether {@code file} has a sidecar (a regular file; a directory or link of that name is none). */
    static boolean exists(Path file) {
        return Files.isRegularFile(of(file), LinkOption.NOFOLLOW_LINKS);
    }

    /** The text of {@code file}'s sidecar, or {@code null} when it has none. */
    static String read(Path file) throws IOException {
        Path sidecar = of(file);
        try {
            BasicFileAttributes attrs =
                    Files.readAttributes(sidecar, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isRegularFile()) {
                return null;
            }
            if (attrs.size() > MAX_BYTES) {
                return "(" + attrs.size() + " bytes, too long for a decimal CRC32C)";
            }
            return new String(Files.readAllBytes(sidecar), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * The CRC32C a sidecar's text holds, or {@code null} when it holds none. Taken as Ursa may write it: unsigned
     * ({@code CRC32C.getValue()}) or as a signed 32-bit int, with whitespace (a newline) around it.
     */
    static Integer parse(String text) {
        String s = text.strip();
        if (s.isEmpty() || s.length() > 11 || !s.matches("-?[0-9]+")) {
            return null;
        }
        long v = Long.parseLong(s);
        if (v < Integer.MIN_VALUE || v > 0xFFFFFFFFL) {
            return null;
        }
        return (int) v;
    }

    /** The CRC32C in the sidecar's form (unsigned decimal) and in hex, for messages: {@code 3808858755 (e3069283)}. */
    static String describe(int crc) {
        return String.format(Locale.ROOT, "%d (%08x)", Integer.toUnsignedLong(crc), crc);
    }
}
