/** Small collections the rest of the core shares; imports no other core package. */
package dev.lakestream.core.collect;
