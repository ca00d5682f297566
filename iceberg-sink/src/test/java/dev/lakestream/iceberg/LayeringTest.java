package dev.lakestream.iceberg;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The module's package structure as docs/architecture.md states it ("The Iceberg sink"): no cycle between packages,
 * and each floor imports only the floors below it. Main code only (tests and benchmarks may reach across).
 */
class LayeringTest {

    private static final String BASE = "dev.lakestream.iceberg";

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BASE);

    /** One slice per package directly below {@value #BASE}, and one for {@value #BASE} itself (the materializer). */
    private static final SliceAssignment PACKAGES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String pkg = c.getPackageName();
            if (pkg.equals(BASE)) {
                return SliceIdentifier.of("(root)");
            }
            if (pkg.startsWith(BASE + ".")) {
                return SliceIdentifier.of(pkg.substring(BASE.length() + 1).split("\\.", -1)[0]);
            }
            return SliceIdentifier.ignore();
        }

        @Override
        public String getDescription() {
            return BASE + " and each package below it";
        }
    };

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
        slices().assignedFrom(PACKAGES).should().beFreeOfCycles().check(MAIN);
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
