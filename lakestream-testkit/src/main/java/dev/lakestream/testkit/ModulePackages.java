package dev.lakestream.testkit;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * What every module's {@code LayeringTest} shares (docs/architecture.md): the module's main classes under one base
 * package, and its packages as slices, one per package directly below the base and one for the base itself. ArchUnit's
 * usual pattern {@code base.(*)..} leaves the base package out, and the base is where cycles closed (a factory and its
 * ledger, shared helpers and both floors).
 */
public final class ModulePackages {

    private final String base;
    private final JavaClasses main;

    private ModulePackages(String base) {
        this.base = base;
        this.main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(base);
    }

    /** The main classes (tests and benchmarks left out: they may reach across) under {@code base}. */
    public static ModulePackages of(String base) {
        return new ModulePackages(base);
    }

    public JavaClasses main() {
        return main;
    }

    /** Fails, naming the cycle, if two of the module's packages (the base counted as one) import each other. */
    public void checkFreeOfCycles() {
        slices().assignedFrom(packages()).should().beFreeOfCycles().check(main);
    }

    /** One slice per package directly below the base, and one, {@code (root)}, for the base package itself. */
    public SliceAssignment packages() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String pkg = c.getPackageName();
                if (pkg.equals(base)) {
                    return SliceIdentifier.of("(root)");
                }
                if (pkg.startsWith(base + ".")) {
                    return SliceIdentifier.of(pkg.substring(base.length() + 1).split("\\.", -1)[0]);
                }
                return SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return base + " and each package below it";
            }
        };
    }
}
