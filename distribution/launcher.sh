# Sourced by bin/run-broker, bin/pulsar-admin and bin/pulsar-client (from the repository root, under bin/with-jdk):
# builds the distribution module when needed and gives its classpath and the JVM flags.

dist_dir=$PWD/distribution
dist_classpath_file=$dist_dir/target/classpath.txt
# The broker plugin's NAR (module pulsar-protocol-handler), copied here by lakestream_build: bin/run-broker points
# brokerInterceptorsDirectory at this directory.
dist_plugin_dir=$dist_dir/target/interceptors

# Builds the broker, the storage plugin, the broker plugin (NAR) and the CLI tools (this module, the module
# pulsar-protocol-handler, and the modules they need) when target/classpath.txt or the NAR is missing, or older than
# any source or pom they are built from.
# LAKESTREAM_SKIP_BUILD=1 never builds.
lakestream_build() {
  if [[ "${LAKESTREAM_SKIP_BUILD:-}" == 1 ]]; then
    if [[ ! -f "$dist_classpath_file" ]]; then
      echo "$0: $dist_classpath_file is missing and LAKESTREAM_SKIP_BUILD=1: build once without it" >&2
      exit 1
    fi
    return
  fi
  if [[ -f "$dist_classpath_file" ]] && compgen -G "$dist_plugin_dir/*.nar" >/dev/null \
      && [[ -z "$(find pom.xml lakestream-core lakestream-testkit pulsar-managedledger-lakestream pulsar-protocol-handler \
      "$dist_dir" \( -path '*/target' -o -path '*/src/test' -o -path '*/src/bench' \) \
      -prune -o -type f -newer "$dist_classpath_file" -print -quit)" ]]; then
    return
  fi
  echo "[$(basename "$0")] building the broker and the CLI tools (Maven; the first time takes a few minutes)" >&2
  local log=target/distribution-build.log
  mkdir -p target
  if ! ./mvnw -B -ntp package -DskipTests -pl distribution,pulsar-protocol-handler -am >"$log" 2>&1; then
    grep -E '^\[ERROR\]' "$log" | head -40 >&2
    echo "$0: the build failed; full log: $log" >&2
    exit 1
  fi
  # A copy, like target/lib: a later build does not replace the NAR under a running broker.
  rm -rf "$dist_plugin_dir"
  mkdir -p "$dist_plugin_dir"
  cp pulsar-protocol-handler/target/lakestream-broker-plugin-*.nar "$dist_plugin_dir/"
  touch "$dist_classpath_file"
}

# The runtime classpath: launcher classes, this project's jars (copied, so later builds do not disturb a running
# broker), then the third-party jars in the local Maven repository.
lakestream_classpath() {
  echo "$dist_dir/target/classes:$dist_dir/target/lib/*:$(cat "$dist_classpath_file")"
}

# The CLI tools' classpath: the jars only (a class-data-sharing archive admits no directory on the classpath).
lakestream_cli_classpath() {
  local cp="" jar
  for jar in "$dist_dir"/target/lib/*.jar; do cp+="$jar:"; done
  echo "$cp$(cat "$dist_classpath_file")"
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
