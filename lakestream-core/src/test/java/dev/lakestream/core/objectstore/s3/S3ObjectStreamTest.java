package dev.lakestream.core.objectstore.s3;

import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.await;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.failure;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.string;
import static dev.lakestream.core.objectstore.ObjectStoreTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lakestream.core.objectstore.ObjectStoreException;
import dev.lakestream.core.objectstore.ObjectStream;
import dev.lakestream.testkit.S3ProxyExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What S3's streams add to the conformance suite: idle streams are closed, and open streams are bounded. */
class S3ObjectStreamTest {

    @RegisterExtension
    static final S3ProxyExtension S3 = new S3ProxyExtension();

    private S3ObjectStore store;

    @BeforeEach
    void open() {
        // A 1 s request timeout makes streams idle after 0.5 s; 4 concurrent requests leave room for one stream.
        store = new S3ObjectStore(S3ObjectStoreConfig.builder()
                .bucket(S3.createBucket())
                .endpoint(S3.endpoint())
                .region(S3.region())
                .pathStyleAccess(true)
                .credentials(S3.accessKey(), S3.secretKey())
                .requestTimeout(Duration.ofSeconds(1))
                .maxConcurrentRequests(4)
                .build());
        await(store.put("k", utf8("0123456789")));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aStreamNobodyReadsIsClosedAndGivesItsPlaceBack() throws Exception {
        ObjectStream first = await(store.openStream("k", 0, 10));
        assertThat(first.requestPerRead()).isFalse();
        assertThat(string(await(first.read(3)))).isEqualTo("012");

        // The one place is taken: another stream is made of ranged GETs.
        ObjectStream second = await(store.openStream("k", 0, 10));
        assertThat(second.requestPerRead()).isTrue();
        assertThat(string(await(second.read(10)))).isEqualTo("0123456789");

        Thread.sleep(1500);
        assertThat(first.isOpen()).isFalse();
        ObjectStoreException e = failure(first.read(3), ObjectStoreException.class);
        assertThat(e).hasMessageContaining("position 3").hasMessageContaining("nothing was read from it");

        ObjectStream third = await(store.openStream("k", 3, 7));
        assertThat(third.requestPerRead()).isFalse();
        assertThat(string(await(third.read(7)))).isEqualTo("3456789");
        assertThat(third.isOpen()).isFalse(); // read to its end: closed, its place given back
        assertThat(await(store.openStream("k", 0, 1)).requestPerRead()).isFalse();
    }

    @Test
    void closingTheStoreClosesItsStreams() {
        ObjectStream s = await(store.openStream("k", 0, 10));
        assertThat(string(await(s.read(3)))).isEqualTo("012");
        store.close();
        assertThat(s.isOpen()).isFalse();
        assertThat(failure(s.read(3), ObjectStoreException.class)).hasMessageContaining("position 3");
    }
}
