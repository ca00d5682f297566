package dev.lakestream.handler;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.lakestream.testkit.ModulePackages;
import org.junit.jupiter.api.Test;

/**
 * The module's package structure as docs/architecture.md states it ("The broker plugin"): no cycle between packages,
 * and each floor imports only the floors below it. Main code only.
 */
class LayeringTest {

    private static final String BASE = "dev.lakestream.handler";

    private static final ModulePackages PACKAGES = ModulePackages.of(BASE);
    private static final JavaClasses MAIN = PACKAGES.main();

    @Test
    void importsTheMainClasses() {
        // Guards the rules below against passing on nothing (a changed class path or import option).
        assertThat(MAIN.contain(LakestreamProtocolHandler.class)).isTrue();
        assertThat(MAIN.contain("dev.lakestream.handler.iceberg.IcebergHost")).isTrue();
        assertThat(MAIN.contain("dev.lakestream.handler.LayeringTest")).isFalse();
    }

    @Test
    void packagesAreFreeOfCycles() {
        PACKAGES.checkFreeOfCycles();
    }

    @Test
    void eachFloorImportsOnlyTheFloorsBelowIt() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer("plugin")
                .definedBy(BASE)
                .layer("iceberg")
                .definedBy(BASE + ".iceberg..")
                .whereLayer("plugin")
                .mayNotBeAccessedByAnyLayer()
                // A new package must be given its floor here (and in docs/architecture.md).
                .ensureAllClassesAreContainedInArchitecture()
                .check(MAIN);
    }

    @Test
    void icebergImportsNoOtherPackageOfTheModule() {
        classes()
                .that()
                .resideInAPackage(BASE + ".iceberg..")
                .should()
                .onlyDependOnClassesThat(resideOutsideOfPackage(BASE + "..").or(resideInAPackage(BASE + ".iceberg..")))
                .check(MAIN);
    }
}
