package dev.lakestream.tests.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The release bundle carries the broker plugin's NAR once ({@code plugins/}); {@code bin/lakestream-install} puts it
 * into the protocol-handler directory and the interceptor directory {@code broker.conf} names, the second as a hard
 * link to the first where both are on one file system (else a copy). No broker runs here: these are the installer's
 * file operations on copies of the stock home.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InstallerPluginDirectoriesTest {

    private static final String NAR = "lakestream-" + StockPulsarHome.VERSION + ".nar";

    private static Path workDir;

    @BeforeAll
    static void dirs() throws Exception {
        workDir = Files.createDirectories(StockPulsarHome.projectDir().resolve("tests/target/installer-plugin-dirs"));
        TestDirs.clean(workDir);
    }

    @Test
    void theBundleAndItsTarballCarryTheNarOnce() throws Exception {
        Path bundle = StockPulsarHome.bundle();
        try (Stream<Path> all = Files.walk(bundle)) {
            assertThat(all.filter(p -> p.getFileName().toString().endsWith(".nar"))
                            .map(bundle::relativize)
                            .toList())
                    .containsExactly(Path.of("plugins", NAR));
        }
        Path tarball = bundle.resolveSibling(bundle.getFileName() + "-bin.tar.gz");
        StockPulsarHome.CommandResult listing =
                StockPulsarHome.run(List.of("tar", "tzf", tarball.toString()), Map.of(), 60);
        assertThat(listing.exitCode()).as("%s", listing).isZero();
        assertThat(listing.output().lines().filter(l -> l.endsWith(".nar")))
                .containsExactly(bundle.getFileName() + "/plugins/" + NAR);
    }

    @Test
    void bothDefaultDirectoriesHoldOneFileAndUninstallRemovesBoth() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("defaults"));
        String before = Files.readString(home.brokerConf());
        StockPulsarHome.CommandResult r = installed(home);
        Path proto = home.dir().resolve("protocols").resolve(NAR);
        Path icpt = home.dir().resolve("interceptors").resolve(NAR);
        assertThat(proto).isRegularFile().hasSameBinaryContentAs(bundleNar());
        assertThat(Files.isSameFile(proto, icpt))
                .as("one file in both directories; %s", r)
                .isTrue();
        // Two names, neither of them the bundle's: the bundle can be deleted after the install.
        assertThat(Files.getAttribute(proto, "unix:nlink")).isEqualTo(2);
        assertThat(r.output()).contains("installed " + icpt + " (a hard link to " + proto + ")");

        StockPulsarHome.CommandResult u = home.install("--uninstall");
        assertThat(u.exitCode()).as("%s", u).isZero();
        assertThat(proto).doesNotExist();
        assertThat(icpt).doesNotExist();
        assertThat(Files.readString(home.brokerConf())).isEqualTo(before);
    }

    @Test
    void aSecondInstallChangesNoFile() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("twice"));
        installed(home);
        Path proto = home.dir().resolve("protocols").resolve(NAR);
        Path icpt = home.dir().resolve("interceptors").resolve(NAR);
        Object inode = Files.getAttribute(proto, "unix:ino");

        StockPulsarHome.CommandResult again = installed(home);
        assertThat(again.output())
                .contains(proto + " is up to date")
                .contains(icpt + " is up to date")
                .doesNotContain("installed ");
        assertThat(Files.getAttribute(proto, "unix:ino")).isEqualTo(inode);
        assertThat(Files.isSameFile(proto, icpt)).isTrue();
    }

    @Test
    void aReinstallOverAnOlderInstallReplacesBothWithOneFile() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("older"));
        Path protoDir = home.dir().resolve("protocols");
        Path icptDir = home.dir().resolve("interceptors");
        // What earlier installs left: an older version in both, and this version as two copies (the installer before
        // the bundle carried the NAR once copied it twice).
        for (Path dir : List.of(protoDir, icptDir)) {
            Files.writeString(dir.resolve("lakestream-0.0.9.nar"), "an older plugin");
            Files.copy(bundleNar(), dir.resolve(NAR));
        }
        StockPulsarHome.CommandResult r = installed(home);
        assertThat(protoDir.resolve("lakestream-0.0.9.nar")).doesNotExist();
        assertThat(icptDir.resolve("lakestream-0.0.9.nar")).doesNotExist();
        assertThat(Files.isSameFile(protoDir.resolve(NAR), icptDir.resolve(NAR)))
                .as("the second copy replaced by a link; %s", r)
                .isTrue();

        // A stale build of this version, already one file in both: replaced in both.
        Path proto = protoDir.resolve(NAR);
        Files.delete(proto);
        Files.writeString(proto, "a stale build");
        Files.delete(icptDir.resolve(NAR));
        Files.createLink(icptDir.resolve(NAR), proto);
        StockPulsarHome.CommandResult r2 = installed(home);
        assertThat(proto).hasSameBinaryContentAs(bundleNar());
        assertThat(Files.isSameFile(proto, icptDir.resolve(NAR))).as("%s", r2).isTrue();
        assertThat(Files.getAttribute(proto, "unix:nlink")).isEqualTo(2);
    }

    @Test
    void theDirectoriesBrokerConfNamesAreKept() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("custom"));
        Path icptDir = workDir.resolve("custom-interceptors");
        home.editBrokerConf(Map.of(
                "protocolHandlerDirectory", "./my-protocols", "brokerInterceptorsDirectory", icptDir.toString()));
        String before = Files.readString(home.brokerConf());
        StockPulsarHome.CommandResult r = installed(home);
        Path proto = home.dir().resolve("my-protocols").resolve(NAR);
        assertThat(proto).hasSameBinaryContentAs(bundleNar());
        assertThat(Files.isSameFile(proto, icptDir.resolve(NAR))).as("%s", r).isTrue();
        assertThat(nars(home.dir().resolve("protocols"))).isEmpty();
        assertThat(nars(home.dir().resolve("interceptors"))).isEmpty();
        String conf = Files.readString(home.brokerConf());
        assertThat(activeValues(conf, "protocolHandlerDirectory"))
                .containsExactly(home.dir().resolve("my-protocols").toString());
        assertThat(activeValues(conf, "brokerInterceptorsDirectory")).containsExactly(icptDir.toString());

        StockPulsarHome.CommandResult u = home.install("--uninstall");
        assertThat(u.exitCode()).as("%s", u).isZero();
        assertThat(proto).doesNotExist();
        assertThat(icptDir.resolve(NAR)).doesNotExist();
        assertThat(Files.readString(home.brokerConf())).isEqualTo(before);
    }

    @Test
    void oneDirectoryForBothRolesHoldsTheNarOnce() throws Exception {
        StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("shared"));
        home.editBrokerConf(
                Map.of("protocolHandlerDirectory", "./plugins", "brokerInterceptorsDirectory", "./plugins"));
        StockPulsarHome.CommandResult r = installed(home);
        Path dir = home.dir().resolve("plugins");
        assertThat(nars(dir)).as("%s", r).containsExactly(dir.resolve(NAR));
        assertThat(Files.getAttribute(dir.resolve(NAR), "unix:nlink")).isEqualTo(1);

        assertThat(home.install("--uninstall").exitCode()).isZero();
        assertThat(nars(dir)).isEmpty();
    }

    @Test
    void anInterceptorDirectoryOnAnotherFileSystemGetsACopy() throws Exception {
        Path shm = Path.of("/dev/shm");
        assumeTrue(
                Files.isDirectory(shm)
                        && Files.isWritable(shm)
                        && !Files.getFileStore(shm).equals(Files.getFileStore(workDir)),
                "needs a writable /dev/shm on another file system than " + workDir);
        Path icptDir = Files.createTempDirectory(shm, "lakestream-interceptors-");
        try {
            StockPulsarHome home = StockPulsarHome.copyTo(workDir.resolve("other-fs"));
            home.editBrokerConf(Map.of("brokerInterceptorsDirectory", icptDir.toString()));
            StockPulsarHome.CommandResult r = installed(home);
            Path proto = home.dir().resolve("protocols").resolve(NAR);
            Path icpt = icptDir.resolve(NAR);
            assertThat(icpt).hasSameBinaryContentAs(bundleNar());
            assertThat(Files.isSameFile(proto, icpt)).isFalse();
            assertThat(r.output()).contains("installed " + icpt + " (a copy: no hard link");

            assertThat(installed(home).output()).contains(icpt + " is up to date");
            assertThat(home.install("--uninstall").exitCode()).isZero();
            assertThat(icpt).doesNotExist();
        } finally {
            TestDirs.clean(icptDir);
            Files.deleteIfExists(icptDir);
        }
    }

    /** Installs the bundle (diskless, addresses never reached: nothing starts) and checks that it succeeded. */
    private static StockPulsarHome.CommandResult installed(StockPulsarHome home) {
        StockPulsarHome.CommandResult r = home.install("--diskless");
        assertThat(r.exitCode()).as("%s", r).isZero();
        return r;
    }

    private static Path bundleNar() {
        return StockPulsarHome.bundle().resolve("plugins").resolve(NAR);
    }

    /** The NARs in {@code dir} (the stock home's plugin directories hold a {@code .keep} file too). */
    private static List<Path> nars(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".nar"))
                    .toList();
        }
    }

    private static List<String> activeValues(String conf, String key) {
        return conf.lines()
                .filter(l -> l.startsWith(key + "="))
                .map(l -> l.substring(key.length() + 1))
                .toList();
    }
}
