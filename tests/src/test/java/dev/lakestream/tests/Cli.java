package dev.lakestream.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code bin/pulsar-admin} and {@code bin/pulsar-client} as processes, as a user types them. */
final class Cli {

    private Cli() {}

    record Result(int exitCode, String stdout, String stderr) {}

    /** As {@link #run}, and fails (showing both outputs) unless the tool exits with 0. */
    static Result runOk(String tool, String... args) throws IOException, InterruptedException {
        Result r = run(tool, args);
        assertThat(r.exitCode())
                .as("exit code of bin/%s %s; stdout:%n%s%nstderr:%n%s", tool, List.of(args), r.stdout(), r.stderr())
                .isZero();
        return r;
    }

    /** Runs {@code bin/<tool> args...} from the repository root, on what the distribution module built. */
    static Result run(String tool, String... args) throws IOException, InterruptedException {
        Path root = PulsarBrokerExtension.projectDir();
        List<String> command = new ArrayList<>();
        command.add(root.resolve("bin").resolve(tool).toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile("cli-", ".out");
        Path err = Files.createTempFile("cli-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(root.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            pb.environment().put("LAKESTREAM_SKIP_BUILD", "1");
            pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(command + " did not finish within 120 s; stderr:\n" + Files.readString(err));
            }
            return new Result(
                    p.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
