package dev.lakestream.pulsar;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.lakestream.testkit.ModulePackages;
import org.junit.jupiter.api.Test;

/**
 * The module's package structure as docs/architecture.md states it ("Packages"): no cycle between packages, and each
 * floor imports only the floors below it. Main code only (tests and benchmarks may reach across).
 */
class LayeringTest {

    private static final String BASE = "dev.lakestream.pulsar";

    private static final ModulePackages PACKAGES = ModulePackages.of(BASE);
    private static final JavaClasses MAIN = PACKAGES.main();

    @Test
    void importsTheMainClasses() {
        // Guards the rules below against passing on nothing (a changed class path or import option).
        assertThat(MAIN.contain(LakestreamManagedLedgerFactory.class)).isTrue();
        assertThat(MAIN.contain("dev.lakestream.pulsar.ledger.LakestreamManagedLedger"))
                .isTrue();
        assertThat(MAIN.contain("dev.lakestream.pulsar.LayeringTest")).isFalse();
    }

    @Test
    void packagesAreFreeOfCycles() {
        PACKAGES.checkFreeOfCycles();
    }

    @Test
    void eachFloorImportsOnlyTheFloorsBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("services")
                .definedBy(BASE + ".schema..", BASE + ".compaction..", BASE + ".transaction..")
                .layer("storage")
                .definedBy(BASE)
                .layer("ledger")
                .definedBy(BASE + ".ledger..")
                .layer("cursor")
                .definedBy(BASE + ".cursor..")
                .layer("metrics")
                .definedBy(BASE + ".metrics..")
                .layer("common")
                .definedBy(BASE + ".common..")
                .whereLayer("services")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("storage")
                .mayOnlyBeAccessedByLayers("services")
                .whereLayer("ledger")
                .mayOnlyBeAccessedByLayers("storage", "services")
                .whereLayer("cursor")
                .mayOnlyBeAccessedByLayers("ledger", "storage", "services")
                .whereLayer("metrics")
                .mayOnlyBeAccessedByLayers("cursor", "ledger", "storage", "services")
                // A new package must be given its floor here (and in docs/architecture.md).
                .ensureAllClassesAreContainedInArchitecture()
                .check(MAIN);
    }

    @Test
    void commonImportsNoOtherPackageOfTheModule() {
        classes()
                .that()
                .resideInAPackage(BASE + ".common..")
                .should()
                .onlyDependOnClassesThat(resideOutsideOfPackage(BASE + "..").or(resideInAPackage(BASE + ".common..")))
                .check(MAIN);
    }
}
