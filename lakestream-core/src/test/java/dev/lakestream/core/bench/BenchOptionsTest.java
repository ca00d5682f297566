package dev.lakestream.core.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** {@link LogBenchmark}'s command line: the defaults its report describes, and what --quick changes where. */
class BenchOptionsTest {

    @Test
    void noOptionsGiveTheFullRunsDefaults() {
        BenchOptions o = BenchOptions.parse();
        assertThat(o.streams).isEqualTo(64);
        assertThat(o.entryBytes).isEqualTo(1024);
        assertThat(o.outstanding).isEqualTo(32768);
        assertThat(o.reps).isEqualTo(5);
        assertThat(o.pinnedReps).isEqualTo(5);
        assertThat(o.jitWarmupSeconds).isEqualTo(15);
        assertThat(o.writerSeconds).isEqualTo(12);
        assertThat(o.rawSeconds).isEqualTo(6);
        assertThat(o.rate).isEqualTo(2000);
        assertThat(o.latencySeconds).isEqualTo(20);
        assertThat(o.catchUpMib).isEqualTo(192);
        assertThat(o.dispatchMib).isEqualTo(16);
        assertThat(o.dispatchReps).isEqualTo(3);
        assertThat(o.doc).isNull();
        assertThat(o.command).isEqualTo("java dev.lakestream.core.bench.LogBenchmark");
        assertThat(o.quick).isFalse();
    }

    @Test
    void quickSetsItsValuesWhereItStandsAndTheLastDocWins() {
        BenchOptions before = BenchOptions.parse("--reps", "3", "--quick");
        assertThat(before.quick).isTrue();
        assertThat(before.reps).isEqualTo(1);
        assertThat(before.catchUpMib).isEqualTo(64);
        assertThat(BenchOptions.parse("--quick", "--reps", "3").reps).isEqualTo(3);

        assertThat(BenchOptions.parse("--doc", "a.md", "--no-doc").doc).isNull();
        assertThat(BenchOptions.parse("--doc", "a.md", "--no-doc", "--doc", "b.md").doc)
                .isEqualTo(Path.of("b.md"));
        assertThat(BenchOptions.parse("--entry-bytes", "4").entryBytes).isEqualTo(16);
        assertThat(BenchOptions.parse("--pinned-reps", "-1").pinnedReps).isZero();
    }

    @Test
    void anUnknownOptionOrABadValueFailsNamingIt() {
        assertThatThrownBy(() -> BenchOptions.parse("--repz", "3"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--repz'");
        assertThatThrownBy(() -> BenchOptions.parse("--reps", "0"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--reps'")
                .hasMessageContaining("must be positive, not 0");
        assertThatThrownBy(() -> BenchOptions.parse("--streams", "many"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("'--streams'")
                .hasMessageContaining("'many'");
    }
}
