# Sourced by bin/pulsar before it starts a JVM, as in Pulsar's distribution.
# PULSAR_MEM="-Xms512m -Xmx1g -XX:MaxDirectMemorySize=1g"
# PULSAR_EXTRA_OPTS=""
# PULSAR_EXTRA_CLASSPATH=""
