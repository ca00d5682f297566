/** Byte encodings shared by the WAL, the offset index and the cursors; depends on no other core package. */
package dev.lakestream.core.codec;
