# Sourced by the bundle's bin/lakestream-materialize and bin/lakestream: finds Java and Pulsar, and runs a tool's
# main class on PULSAR_HOME/lib (Pulsar's jars) + this bundle's lib/ (the storage jar) + tools/lib/ (the Iceberg
# materializer and what it needs beyond Pulsar's lib/).
#
# Environment: PULSAR_HOME (required: a Pulsar 5.0.x home), JAVA_HOME (else java on the PATH; 21 or newer),
# LAKESTREAM_TOOL_OPTS (more JVM options, e.g. -Xmx2g), LAKESTREAM_TOOL_LOG_LEVEL (default INFO).

lakestream_tool_run() {
  local prog=$1 main=$2
  shift 2
  local bundle
  bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  if [[ -z "${PULSAR_HOME:-}" || ! -d "${PULSAR_HOME}/lib" ]]; then
    echo "$prog: set PULSAR_HOME to a Pulsar 5.0.x home (its lib/ holds the jars this tool runs on)" >&2
    exit 2
  fi
  local java=java
  [[ -n "${JAVA_HOME:-}" ]] && java=$JAVA_HOME/bin/java
  local major
  major=$("$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1)
  if [[ -z "$major" || "$major" -lt 21 ]]; then
    echo "$prog: needs Java 21 or newer (found '${major:-none}' from $java)" >&2
    exit 2
  fi
  local opts=(--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true --enable-native-access=ALL-UNNAMED
    "-Dlog4j2.configurationFile=$bundle/tools/log4j2-tools.xml")
  [[ "$major" -ge 24 ]] && opts+=(--sun-misc-unsafe-memory-access=allow)
  if [[ -n "${LAKESTREAM_TOOL_OPTS:-}" ]]; then
    local extra
    read -r -a extra <<<"$LAKESTREAM_TOOL_OPTS"
    opts+=("${extra[@]}")
  fi
  # The bundle's storage jar first: a Pulsar home with an older bundle installed must not shadow it.
  exec "$java" "${opts[@]}" -cp "$bundle/lib/*:$bundle/tools/lib/*:$PULSAR_HOME/lib/*" "$main" "$@"
}
