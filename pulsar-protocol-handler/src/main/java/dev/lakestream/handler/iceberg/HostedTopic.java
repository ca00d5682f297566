package dev.lakestream.handler.iceberg;

import dev.lakestream.core.catalog.StreamInfo;
import dev.lakestream.iceberg.MaterializerRunner;
import dev.lakestream.iceberg.MaterializerStatus;
import java.util.concurrent.CompletableFuture;

/**
 * One topic partition this broker materializes: its stream, its runner, and what the host last did about its
 * retention hold. Changed on the host's control thread ({@link IcebergHost}), {@link #heldOffset} also when a hold
 * write completes; {@link #status()} is read by the metrics from anywhere.
 */
final class HostedTopic {

    final String topicName;
    final StreamInfo stream;
    final MaterializerRunner runner;
    /**
     * The broker's topic object it was started for: a topic unloaded and loaded again between two checks is another
     * object, and the runner is restarted as on any ownership change.
     */
    final Object brokerTopic;
    /** The offset of this host's retention hold on the stream as last written (-1: none written yet). */
    volatile long heldOffset = -1;
    /** Set once the runner is being closed; the entry leaves the host when it completes. */
    CompletableFuture<Void> closing;

    HostedTopic(String topicName, StreamInfo stream, MaterializerRunner runner, Object brokerTopic) {
        this.topicName = topicName;
        this.stream = stream;
        this.runner = runner;
        this.brokerTopic = brokerTopic;
    }

    MaterializerStatus status() {
        return runner.materializer().status();
    }

    String table() {
        return runner.materializer().tableId().toString();
    }
}
