/** Concurrency helpers shared by the stores and services: named daemon thread factories. */
package dev.lakestream.core.concurrent;
