package dev.lakestream.handler;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.Map;
import org.apache.pulsar.broker.PulsarService;
import org.apache.pulsar.broker.ServiceConfiguration;
import org.apache.pulsar.broker.protocol.ProtocolHandler;
import org.apache.pulsar.broker.service.BrokerService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Lakestream broker plugin as a Pulsar protocol handler ({@code messagingProtocols=lakestream}): not a protocol,
 * but the one plugin kind a broker starts after its storage, with the broker in hand. It hosts the background services
 * of the storage the broker runs ({@link BackgroundServices}) and opens no port.
 *
 * <p>The storage itself cannot live here: the broker creates it through the application class loader before any
 * plugin is loaded, so it comes from {@code lib/lakestream-pulsar-*.jar}. This class refers to none of that jar's
 * classes, so that a broker without the jar gets {@link StorageCheck}'s message rather than a
 * {@link NoClassDefFoundError}.
 */
public class LakestreamProtocolHandler implements ProtocolHandler {

    private static final Logger LOG = LoggerFactory.getLogger(LakestreamProtocolHandler.class);

    public static final String PROTOCOL = "lakestream";

    private ServiceConfiguration conf;
    /** The running services; an {@code AutoCloseable} so that this class names no class of the storage jar. */
    private AutoCloseable services;

    @Override
    public String protocolName() {
        return PROTOCOL;
    }

    @Override
    public boolean accept(String protocol) {
        return PROTOCOL.equalsIgnoreCase(protocol);
    }

    @Override
    public void initialize(ServiceConfiguration conf) {
        StorageCheck.require(conf, PulsarService.class.getClassLoader());
        this.conf = conf;
    }

    @Override
    public String getProtocolDataToAdvertise() {
        return PluginVersion.get();
    }

    @Override
    public void start(BrokerService service) {
        if (conf == null) {
            throw new IllegalStateException("The Lakestream protocol handler was started before it was initialised");
        }
        services = BackgroundServices.start(service.getPulsar());
        LOG.info("Lakestream broker plugin {} started: {}", PluginVersion.get(), services);
    }

    @Override
    public Map<InetSocketAddress, ChannelInitializer<SocketChannel>> newChannelInitializers() {
        return Map.of(); // no port: the plugin serves no protocol of its own
    }

    @Override
    public void close() {
        AutoCloseable s = services;
        services = null;
        if (s != null) {
            try {
                s.close();
            } catch (Exception e) {
                LOG.warn("Stopping the Lakestream background services failed", e);
            }
        }
    }
}
