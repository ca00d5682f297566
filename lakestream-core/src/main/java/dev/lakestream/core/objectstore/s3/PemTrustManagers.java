package dev.lakestream.core.objectstore.s3;

import dev.lakestream.core.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trust managers that trust exactly the CA certificates of a PEM file ({@value S3ObjectStoreConfig#TLS_TRUST_CERTS_FILE}),
 * for an https S3 endpoint whose certificate a private CA signed. Bad files fail with a {@link ConfigException} naming
 * the key and the file.
 */
final class PemTrustManagers {

    private PemTrustManagers() {}

    /** The certificates of {@code file}; at least one. */
    static Collection<? extends Certificate> certificates(Path file) {
        String key = S3ObjectStoreConfig.TLS_TRUST_CERTS_FILE;
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new ConfigException(key, file.toString(), "is not a readable file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty()) {
                throw new ConfigException(key, file.toString(), "holds no X.509 certificate (PEM or DER expected)");
            }
            return certs;
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(key, file.toString(), "cannot be read as X.509 certificates: " + e.getMessage());
        }
    }

    /** Trust managers trusting the certificates of {@code file} and nothing else. */
    static TrustManager[] of(Path file) {
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate c : certificates(file)) {
                String alias = c instanceof X509Certificate x
                        ? x.getSubjectX500Principal().getName()
                        : "cert";
                store.setCertificateEntry(i++ + "-" + alias, c);
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            f.init(store);
            return f.getTrustManagers();
        } catch (IOException | GeneralSecurityException e) {
            throw new ConfigException(
                    S3ObjectStoreConfig.TLS_TRUST_CERTS_FILE,
                    file.toString(),
                    "cannot be made a trust store: " + e.getMessage());
        }
    }
}
