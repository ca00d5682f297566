package dev.lakestream.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority and a server certificate it signed for {@code 127.0.0.1}, made with the JDK's
 * {@code keytool} (no extra library): {@link #caPem()} is what a client trusts, {@link #serverKeyStore()} (PKCS#12,
 * password {@link #password()}) what a server such as S3Proxy serves.
 */
public record TestCertificates(Path caPem, Path serverKeyStore, String password) {

    /** Makes the CA and the server certificate in {@code dir} (a few seconds of key generation). */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        String pw = "changeit-" + Long.toString(System.nanoTime(), 36);
        Path ca = dir.resolve("ca.p12");
        Path server = dir.resolve("server.p12");
        Path csr = dir.resolve("server.csr");
        Path crt = dir.resolve("server.pem");
        Path caPem = dir.resolve("ca.pem");
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=Lakestream Test CA",
                "-ext",
                "bc:c",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                ca.toString(),
                "-storepass",
                pw,
                "-keypass",
                pw);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-storepass",
                pw,
                "-file",
                caPem.toString());
        keytool(
                "-genkeypair",
                "-alias",
                "server",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-dname",
                "CN=127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                server.toString(),
                "-storepass",
                pw,
                "-keypass",
                pw);
        keytool(
                "-certreq",
                "-alias",
                "server",
                "-keystore",
                server.toString(),
                "-storepass",
                pw,
                "-file",
                csr.toString());
        keytool(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                ca.toString(),
                "-storepass",
                pw,
                "-infile",
                csr.toString(),
                "-outfile",
                crt.toString(),
                "-validity",
                "2",
                "-ext",
                "SAN=IP:127.0.0.1,DNS:localhost",
                "-ext",
                "KU=digitalSignature,keyEncipherment",
                "-ext",
                "EKU=serverAuth");
        // The chain: the CA first (trusted), then the signed certificate replaces the self-signed one.
        keytool(
                "-importcert",
                "-noprompt",
                "-trustcacerts",
                "-alias",
                "ca",
                "-keystore",
                server.toString(),
                "-storepass",
                pw,
                "-file",
                caPem.toString());
        keytool(
                "-importcert",
                "-alias",
                "server",
                "-keystore",
                server.toString(),
                "-storepass",
                pw,
                "-file",
                crt.toString());
        return new TestCertificates(caPem, server, pw);
    }

    /**
     * Writes the server's certificate chain and its private key (PKCS#8) as PEM files, for servers that take PEM
     * rather than a key store (the Oxia server's {@code --tls-cert-file} and {@code --tls-key-file}).
     *
     * @return the certificate file; the key is {@code keyPem}
     */
    public Path writeServerPem(Path certPem, Path keyPem) throws IOException {
        try {
            java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
            try (var in = java.nio.file.Files.newInputStream(serverKeyStore)) {
                ks.load(in, password.toCharArray());
            }
            java.security.Key key = ks.getKey("server", password.toCharArray());
            java.security.cert.Certificate[] chain = ks.getCertificateChain("server");
            var mime = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
            StringBuilder certs = new StringBuilder();
            for (java.security.cert.Certificate c : chain) {
                certs.append("-----BEGIN CERTIFICATE-----\n")
                        .append(mime.encodeToString(c.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            }
            java.nio.file.Files.writeString(certPem, certs);
            java.nio.file.Files.writeString(
                    keyPem,
                    "-----BEGIN PRIVATE KEY-----\n" + mime.encodeToString(key.getEncoded())
                            + "\n-----END PRIVATE KEY-----\n");
            return certPem;
        } catch (java.security.GeneralSecurityException e) {
            throw new IOException("could not export the server key of " + serverKeyStore + ": " + e, e);
        }
    }

    /** A PKCS#12 trust store holding only the CA, for {@code -Djavax.net.ssl.trustStore} (password: {@link #password}). */
    public Path writeTrustStore(Path trustStore) throws IOException, InterruptedException {
        keytool(
                "-importcert",
                "-noprompt",
                "-trustcacerts",
                "-alias",
                "lakestream-test-ca",
                "-storetype",
                "PKCS12",
                "-keystore",
                trustStore.toString(),
                "-storepass",
                password,
                "-file",
                caPem.toString());
        return trustStore;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool " + args[0] + " failed: " + out);
        }
    }
}
