# Sourced by bin/run-broker, bin/pulsar-admin and bin/pulsar-client (from the repository root, under bin/with-jdk):
# builds the release bundle and the stock Pulsar home when needed, and gives their paths and the JVM flags.

dist_dir=$PWD/distribution
# The stock Pulsar 5.0.1 home (module stock-pulsar): Pulsar's lib/ and launcher, none of this project's classes.
stock_home=$PWD/stock-pulsar/target/apache-pulsar-5.0.1
# The unpacked release bundle (module distribution): lib/, plugins/, conf/, bin/lakestream-install.
bundle_dir=$dist_dir/target/lakestream-pulsar-$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n1)
build_stamp=$dist_dir/target/bundle.stamp

# Builds the bundle and the stock home (modules distribution, stock-pulsar and what they need) when the stamp is
# missing or older than any source or pom they are built from. LAKESTREAM_SKIP_BUILD=1 never builds.
lakestream_build() {
  if [[ "${LAKESTREAM_SKIP_BUILD:-}" == 1 ]]; then
    if [[ ! -f "$build_stamp" ]]; then
      echo "$0: $build_stamp is missing and LAKESTREAM_SKIP_BUILD=1: build once without it" >&2
      exit 1
    fi
    return
  fi
  if [[ -f "$build_stamp" && -x "$bundle_dir/bin/lakestream-install" && -d "$stock_home/lib" ]] \
      && [[ -z "$(find pom.xml conf/lakestream-*.conf lakestream-core lakestream-testkit pulsar-managedledger-lakestream iceberg-sink \
      lakestream-pulsar pulsar-protocol-handler stock-pulsar "$dist_dir" \
      \( -path '*/target' -o -path '*/src/test' -o -path '*/src/bench' \) \
      -prune -o -type f -newer "$build_stamp" -print -quit)" ]]; then
    return
  fi
  echo "[$(basename "$0")] building the release bundle and a stock Pulsar home (Maven; the first time takes a few minutes)" >&2
  local log=target/distribution-build.log
  mkdir -p target
  if ! ./mvnw -B -ntp package -DskipTests -pl distribution -am >"$log" 2>&1; then
    grep -E '^\[ERROR\]' "$log" | head -40 >&2
    echo "$0: the build failed; full log: $log" >&2
    exit 1
  fi
  touch "$build_stamp"
}

# The CLI tools' class path: the stock home's jars (pulsar-client-tools is part of Pulsar's lib/), listed one by one
# (a class-data-sharing archive admits no wildcard).
lakestream_cli_classpath() {
  local cp="" jar
  for jar in "$stock_home"/lib/*.jar; do cp+="$jar:"; done
  echo "${cp%:}"
}

# JVM options that make a CLI tool start faster: class data sharing, with an archive per tool in target/ that the
# first run writes (a few seconds more) and later runs map (about 1.5 s less per command). The JVM writes it again
# when the classpath or the JDK changes; CDS messages are kept quiet, a missing archive only costs time.
lakestream_cli_jvm_flags() {
  printf '%s\n' "-XX:SharedArchiveFile=$dist_dir/target/$1.jsa" -XX:+AutoCreateSharedArchive -Xlog:cds=off \
    -Xlog:cds+dynamic=off -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m
}

# JVM flags for Pulsar on the JDK in $JAVA_HOME (21 or newer), one per line.
lakestream_jdk_flags() {
  local major
  major=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java.specification.version = //p' | head -n1)
  # Netty, the Pulsar client's direct-buffer and the broker's metrics code reach into JDK internals.
  printf '%s\n' \
    --add-opens java.base/java.lang=ALL-UNNAMED \
    --add-opens java.base/java.nio=ALL-UNNAMED \
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED \
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED \
    --add-opens java.base/jdk.internal.platform=ALL-UNNAMED \
    --add-opens java.management/sun.management=ALL-UNNAMED \
    --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
    -Dio.netty.tryReflectionSetAccessible=true \
    --enable-native-access=ALL-UNNAMED
  if [[ "$major" -ge 24 ]]; then
    # JDK 24+ warns about sun.misc.Unsafe memory access (Netty, RocksDB, gRPC) unless it is allowed explicitly.
    echo --sun-misc-unsafe-memory-access=allow
  fi
}
