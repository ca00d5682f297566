package dev.lakestream.iceberg.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** {@code lakestream}'s command line, without a log behind it. */
class OperatorCommandOptionsTest {

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = OperatorCommand.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void dumpShowsTenEntriesFromTheStreamsStartByDefault() {
        OperatorCommand.Options o = OperatorCommand.Options.parse("--conf", "tool.conf", "dump", "7");
        assertThat(o.conf).isEqualTo(Path.of("tool.conf"));
        assertThat(o.from).as("null: the stream's start offset").isNull();
        assertThat(o.count).isEqualTo(10);
        assertThat(o.help).isFalse();
        assertThat(o.words).containsExactly("dump", "7");

        OperatorCommand.Options between =
                OperatorCommand.Options.parse("dump", "--from", "4", "persistent://t/n/x", "--count", "2", "-c", "f");
        assertThat(between.words).as("options among the words").containsExactly("dump", "persistent://t/n/x");
        assertThat(between.from).isEqualTo(4L);
        assertThat(between.count).isEqualTo(2);
        assertThat(between.conf).isEqualTo(Path.of("f"));
    }

    @Test
    void anUnknownOrBadOptionFailsNamingIt() {
        assertThatThrownBy(() -> OperatorCommand.Options.parse("--conf", "x", "streams", "--frob"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--frob'");
        Run unknown = run("--conf", "x", "streams", "--frob");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err())
                .contains("lakestream: Unknown option: '--frob'")
                .contains("usage: lakestream");
        Run notANumber = run("--conf", "x", "dump", "7", "--from", "four");
        assertThat(notANumber.code()).isEqualTo(2);
        assertThat(notANumber.err()).contains("'--from'").contains("'four'");
        Run noValue = run("--conf", "x", "dump", "7", "--count");
        assertThat(noValue.code()).isEqualTo(2);
        assertThat(noValue.err()).contains("'--count'");
        Run zero = run("--conf", "x", "dump", "7", "--count", "0");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err()).contains("--count must be positive");
        Run noConf = run("streams");
        assertThat(noConf.code()).isEqualTo(2);
        assertThat(noConf.err()).contains("--conf FILE is required");
    }

    @Test
    void helpPrintsTheUsage() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).isEqualTo(OperatorCommand.USAGE + System.lineSeparator());
    }
}
