package dev.lakestream.iceberg;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.lakestream.testkit.ModulePackages;
import org.junit.jupiter.api.Test;

/**
 * The module's package structure as docs/architecture.md states it ("The Iceberg sink"): no cycle between packages,
 * and each floor imports only the floors below it. Main code only (tests and benchmarks may reach across).
 */
class LayeringTest {

    private static final String BASE = "dev.lakestream.iceberg";

    private static final ModulePackages PACKAGES = ModulePackages.of(BASE);
    private static final JavaClasses MAIN = PACKAGES.main();

    @Test
    void importsTheMainClasses() {
        // Guards the rules below against passing on nothing (a changed class path or import option).
        assertThat(MAIN.contain(TopicMaterializer.class)).isTrue();
        assertThat(MAIN.contain("dev.lakestream.iceberg.tool.StandaloneMaterializer"))
                .isTrue();
        assertThat(MAIN.contain("dev.lakestream.iceberg.LayeringTest")).isFalse();
    }

    @Test
    void packagesAreFreeOfCycles() {
        PACKAGES.checkFreeOfCycles();
    }

    @Test
    void eachFloorImportsOnlyTheFloorsBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("tool")
                .definedBy(BASE + ".tool..")
                .layer("materializer")
                .definedBy(BASE)
                .layer("schema")
                .definedBy(BASE + ".schema..")
                .layer("bottom")
                .definedBy(BASE + ".pulsar..", BASE + ".io..")
                .whereLayer("tool")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("materializer")
                .mayOnlyBeAccessedByLayers("tool")
                .whereLayer("schema")
                .mayOnlyBeAccessedByLayers("materializer", "tool")
                // A new package must be given its floor here (and in docs/architecture.md).
                .ensureAllClassesAreContainedInArchitecture()
                .check(MAIN);
    }

    @Test
    void theBottomPackagesImportNoOtherPackageOfTheModule() {
        // The layer rule above cannot see .pulsar and .io import each other (one floor); this can.
        for (String bottom : new String[] {"pulsar", "io"}) {
            String own = BASE + "." + bottom + "..";
            classes()
                    .that()
                    .resideInAPackage(own)
                    .should()
                    .onlyDependOnClassesThat(resideOutsideOfPackage(BASE + "..").or(resideInAPackage(own)))
                    .check(MAIN);
        }
    }
}
