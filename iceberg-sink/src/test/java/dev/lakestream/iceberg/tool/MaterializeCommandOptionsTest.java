package dev.lakestream.iceberg.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** {@code lakestream-materialize}'s command line, without a log or a catalog behind it. */
class MaterializeCommandOptionsTest {

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = MaterializeCommand.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                null);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void optionsDefaultToServingUntilStopped() {
        MaterializeCommand.Options o = MaterializeCommand.Options.parse("--conf", "tool.conf");
        assertThat(o.conf).isEqualTo(Path.of("tool.conf"));
        assertThat(o.once).isFalse();
        assertThat(o.help).isFalse();
        assertThat(o.words).isEmpty();

        MaterializeCommand.Options status = MaterializeCommand.Options.parse("status", "-c", "a.conf", "-c", "b.conf");
        assertThat(status.words).containsExactly("status");
        assertThat(status.conf).as("the last --conf wins").isEqualTo(Path.of("b.conf"));
        assertThat(MaterializeCommand.Options.parse("--once").once).isTrue();
    }

    @Test
    void anUnknownOptionFailsNamingIt() {
        assertThatThrownBy(() -> MaterializeCommand.Options.parse("--conf", "x", "--oncee"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--oncee'");
        Run unknown = run("--conf", "x", "--oncee");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("Unknown option: '--oncee'").contains("usage: lakestream-materialize");
        Run noFile = run("--once", "--conf");
        assertThat(noFile.code()).isEqualTo(2);
        assertThat(noFile.err()).contains("'--conf'");
        Run word = run("--conf", "x", "stat");
        assertThat(word.code()).isEqualTo(2);
        assertThat(word.err()).contains("unexpected argument 'stat'");
    }

    @Test
    void helpPrintsTheUsage() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).isEqualTo(MaterializeCommand.USAGE + System.lineSeparator());
        assertThat(run("-h").out()).contains("lakestream-materialize status --conf FILE");
    }
}
