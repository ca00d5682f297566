package dev.lakestream.iceberg.tool;

import dev.lakestream.core.Lakestream;
import dev.lakestream.iceberg.Catalogs;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code bin/lakestream-materialize}: the standalone materializer, reading the bucket and the metadata store
 * directly with no broker running.
 *
 * <pre>
 *   lakestream-materialize --conf FILE            runs until SIGTERM (commits what is pending, then exits)
 *   lakestream-materialize --conf FILE --once     materializes each selected topic up to its current end, exits
 *   lakestream-materialize status --conf FILE     per topic: committed offset, lag, state, last error
 * </pre>
 *
 * Exit codes: 0 done, 1 a topic could not be materialized up to its end ({@code --once}), 2 bad arguments or
 * configuration.
 */
public final class MaterializeCommand {

    private static final Logger LOG = LoggerFactory.getLogger(MaterializeCommand.class);
    static final String USAGE = """
            usage: lakestream-materialize --conf FILE [--once]
                   lakestream-materialize status --conf FILE
              FILE: the broker's lakestream.* and lakestream.iceberg.* keys (a whole broker.conf will do) and the
              tool's lakestream.materialize.* keys (docs/configuration.md)""";

    private MaterializeCommand() {}

    public static void main(String[] args) {
        int code = run(args, System.out, System.err, null);
        System.exit(code);
    }

    /**
     * Runs the command. {@code stop}, if given, ends a long-running materializer when counted down (as SIGTERM
     * does); tests use it.
     */
    public static int run(String[] args, PrintStream out, PrintStream err, CountDownLatch stop) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (ParameterException e) {
            err.println("lakestream-materialize: " + e.getMessage() + "\n" + USAGE);
            return 2;
        }
        if (options.help) {
            out.println(USAGE);
            return 0;
        }
        for (String word : options.words) {
            if (!word.equals("status")) {
                err.println("lakestream-materialize: unexpected argument '" + word + "'\n" + USAGE);
                return 2;
            }
        }
        if (options.conf == null) {
            err.println("lakestream-materialize: --conf FILE is required\n" + USAGE);
            return 2;
        }
        try {
            ToolConfig config = ToolConfig.load(options.conf);
            if (!options.words.isEmpty()) {
                return status(config, out, err);
            }
            return options.once ? once(config, out) : serve(config, stop);
        } catch (IllegalArgumentException e) {
            // ConfigException included: a bad key or value, named.
            err.println("lakestream-materialize: " + e.getMessage());
            return 2;
        }
    }

    private static int status(ToolConfig config, PrintStream out, PrintStream err) {
        Optional<StatusFile.Snapshot> published = StatusFile.read(config.statusFile());
        long now = System.currentTimeMillis();
        Lakestream log;
        try {
            log = Lakestream.open(config.reader());
        } catch (RuntimeException e) {
            // An embedded metadata store admits one process: the running materializer's published status is all
            // there is then.
            if (published.isEmpty()) {
                throw e;
            }
            err.println("lakestream-materialize: cannot open the log (" + e.getMessage() + "); showing the status"
                    + " published by process " + published.get().pid() + " at "
                    + java.time.Instant.ofEpochMilli(published.get().writtenAtMillis()));
            StatusReport.print(StatusReport.fromPublished(published.get(), now), out);
            return 0;
        }
        try (log;
                Closeable catalog = new Closeable(Catalogs.open(config.catalog()))) {
            StatusReport.print(StatusReport.compute(log, catalog.catalog(), config.selection(), published, now), out);
        }
        return 0;
    }

    private static int once(ToolConfig config, PrintStream out) {
        try (Lakestream log = Lakestream.open(config.reader());
                Closeable catalog = new Closeable(Catalogs.open(config.catalog()))) {
            List<StandaloneMaterializer.OnceResult> results =
                    new StandaloneMaterializer(config, log, catalog.catalog()).once();
            int incomplete = 0;
            for (StandaloneMaterializer.OnceResult r : results) {
                out.printf(
                        "%s -> %s: offsets up to %d of %d, %d rows in %d commits, %d dead letters%s%n",
                        r.topic(),
                        r.table(),
                        r.status().nextOffset(),
                        r.target(),
                        r.status().rowsCommitted(),
                        r.status().commits(),
                        r.status().deadLetters(),
                        r.complete() ? "" : " INCOMPLETE: " + r.status().lastError());
                if (!r.complete()) {
                    incomplete++;
                }
            }
            out.printf("%d topic partitions, %d incomplete%n", results.size(), incomplete);
            return incomplete == 0 ? 0 : 1;
        }
    }

    private static int serve(ToolConfig config, CountDownLatch stop) {
        CountDownLatch done = stop != null ? stop : new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        if (stop == null) {
            // SIGTERM / SIGINT: commit what is pending before the JVM exits.
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                done.countDown();
                                try {
                                    closed.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "lakestream-materialize-shutdown"));
        }
        try (Lakestream log = Lakestream.open(config.reader());
                Closeable catalog = new Closeable(Catalogs.open(config.catalog()));
                StandaloneMaterializer m = new StandaloneMaterializer(config, log, catalog.catalog())) {
            LOG.info(
                    "materializing topics {} into catalog {} ({}), warehouse {}",
                    config.selection(),
                    config.catalog().name(),
                    config.catalog().uri(),
                    config.catalog().warehouse());
            m.start();
            done.await();
            LOG.info("stopping: committing what is pending");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closed.countDown();
        }
        return 0;
    }

    /** The command line: what {@link #USAGE} describes (the command {@code status} is the one word it takes). */
    @Command(name = "lakestream-materialize")
    static final class Options {
        @Option(
                names = {"--conf", "-c"},
                paramLabel = "FILE")
        Path conf;

        @Option(names = "--once")
        boolean once;

        @Option(
                names = {"-h", "--help"},
                usageHelp = true)
        boolean help;

        @Parameters(paramLabel = "status")
        List<String> words = new ArrayList<>();

        /** Fails naming the option that is unknown, lacks its value or has a bad one. */
        static Options parse(String... args) {
            Options options = new Options();
            ToolCommandLine.of(options).parseArgs(args);
            return options;
        }
    }

    /** An Iceberg catalog closed with the try block when it is closeable (JdbcCatalog is). */
    private record Closeable(Catalog catalog) implements AutoCloseable {
        @Override
        public void close() {
            if (catalog instanceof java.io.Closeable c) {
                try {
                    c.close();
                } catch (java.io.IOException e) {
                    LOG.warn("closing the catalog failed", e);
                }
            }
        }
    }
}
