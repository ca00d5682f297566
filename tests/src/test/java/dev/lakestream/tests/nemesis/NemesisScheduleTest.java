package dev.lakestream.tests.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class NemesisScheduleTest {

    private static final Duration LENGTH = Duration.ofMinutes(10);

    @Test
    void aSeedGivesTheSameScheduleEveryTime() {
        assertThat(NemesisSchedule.generate(42, LENGTH)).isEqualTo(NemesisSchedule.generate(42, LENGTH));
        assertThat(NemesisSchedule.generate(42, LENGTH).faults())
                .isNotEqualTo(NemesisSchedule.generate(43, LENGTH).faults());
    }

    @Test
    void faultsOfOneGroupNeverOverlapAndBrokerFaultsLeaveTimeToSettle() {
        for (long seed = 1; seed <= 50; seed++) {
            NemesisSchedule s = NemesisSchedule.generate(seed, LENGTH);
            for (FaultKind.Group g : FaultKind.Group.values()) {
                List<ScheduledFault> faults = s.of(g);
                for (int i = 1; i < faults.size(); i++) {
                    ScheduledFault prev = faults.get(i - 1);
                    long gap = NemesisSchedule.GROUP_GAP_MILLIS
                            + (prev.kind().takesABrokerOut() ? NemesisSchedule.BROKER_SETTLE_MILLIS : 0);
                    assertThat(faults.get(i).atMillis())
                            .as("seed %d: %s after %s", seed, faults.get(i), prev)
                            .isGreaterThanOrEqualTo(prev.endMillis() + gap);
                }
            }
            assertThat(s.faults()).allSatisfy(f -> {
                assertThat(f.endMillis()).isLessThanOrEqualTo(LENGTH.toMillis());
                assertThat(f.holdMillis()).isBetween(f.kind().minHoldMillis, f.kind().maxHoldMillis);
            });
        }
    }

    @Test
    void faultsOfDifferentGroupsOverlapAndEveryKindComesUp() {
        NemesisSchedule s = NemesisSchedule.generate(7, LENGTH);
        assertThat(s.counts().keySet()).containsExactlyInAnyOrder(FaultKind.values());
        long overlaps = 0;
        for (ScheduledFault a : s.faults()) {
            for (ScheduledFault b : s.faults()) {
                if (a.kind().group != b.kind().group
                        && a.holdMillis() > 0
                        && b.holdMillis() > 0
                        && a.atMillis() < b.endMillis()
                        && b.atMillis() < a.endMillis()) {
                    overlaps++;
                }
            }
        }
        assertThat(overlaps).as("overlapping faults of different groups").isPositive();
    }

    @Test
    void aScheduleOfSomeKindsHasOnlyThoseAndIsReplayedToo() {
        NemesisSchedule s = NemesisSchedule.generate(7, LENGTH, NemesisTest.KINDS);
        assertThat(s.counts().keySet()).containsExactlyInAnyOrderElementsOf(NemesisTest.KINDS);
        assertThat(s).isEqualTo(NemesisSchedule.generate(7, LENGTH, NemesisTest.KINDS));
        assertThat(s.describe()).contains("left out: [BROKER_PAUSE]");
    }

    @Test
    void aShortRunStillGetsFaultsOfSeveralGroups() {
        NemesisSchedule s = NemesisSchedule.generate(NemesisTest.FIXED_SEED, Duration.ofSeconds(75), NemesisTest.KINDS);
        assertThat(s.faults()).hasSizeGreaterThan(8);
        assertThat(s.faults().stream().map(f -> f.kind().group).distinct().count())
                .isGreaterThanOrEqualTo(3);
    }
}
