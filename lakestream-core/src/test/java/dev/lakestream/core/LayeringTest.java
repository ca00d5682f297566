package dev.lakestream.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import dev.lakestream.testkit.ModulePackages;
import org.junit.jupiter.api.Test;

/**
 * The core's package structure (docs/architecture.md): no cycle between its packages, the root package counted as
 * one of them, and the bottom packages ({@code config}, {@code codec}, {@code concurrent}, {@code collect}) importing none of the
 * others. Main code only.
 */
class LayeringTest {

    private static final String BASE = "dev.lakestream.core";
    private static final String[] BOTTOM = {"config", "codec", "concurrent", "collect"};

    private static final ModulePackages PACKAGES = ModulePackages.of(BASE);
    private static final JavaClasses MAIN = PACKAGES.main();

    @Test
    void importsTheMainClasses() {
        assertThat(MAIN.contain(Lakestream.class)).isTrue();
        assertThat(MAIN.contain("dev.lakestream.core.config.ConfigKeys")).isTrue();
        assertThat(MAIN.contain("dev.lakestream.core.LayeringTest")).isFalse();
    }

    @Test
    void packagesAreFreeOfCycles() {
        PACKAGES.checkFreeOfCycles();
    }

    @Test
    void theBottomPackagesImportNothingAboveThem() {
        for (String bottom : BOTTOM) {
            noClasses()
                    .that()
                    .resideInAPackage(BASE + "." + bottom + "..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAPackage(BASE)
                    .orShould()
                    .dependOnClassesThat()
                    .resideInAnyPackage(abovePackages())
                    .check(MAIN);
        }
    }

    /** Every core package but the bottom ones. */
    private static String[] abovePackages() {
        return MAIN.stream()
                .map(JavaClass::getPackageName)
                .filter(p -> p.startsWith(BASE + "."))
                .map(p -> p.substring(BASE.length() + 1).split("\\.", -1)[0])
                .distinct()
                .filter(p -> !java.util.List.of(BOTTOM).contains(p))
                .map(p -> BASE + "." + p + "..")
                .toArray(String[]::new);
    }
}
