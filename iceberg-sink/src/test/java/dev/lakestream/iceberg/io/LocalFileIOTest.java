package dev.lakestream.iceberg.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileIOTest {

    @TempDir
    Path dir;

    @Test
    void writesAtomicallyReadsWithSeeksAndRefusesToReplaceOnCreate() throws Exception {
        LocalFileIO io = new LocalFileIO();
        String location = dir.resolve("a/b/file.bin").toUri().toString();
        OutputFile out = io.newOutputFile(location);
        PositionOutputStream s = out.create();
        s.write(new byte[] {1, 2, 3, 4, 5});
        assertThat(io.newInputFile(location).exists())
                .as("not visible before close")
                .isFalse();
        s.close();
        assertThat(s.getPos()).isEqualTo(5);
        assertThat(io.newInputFile(location).getLength()).isEqualTo(5);
        try (SeekableInputStream in = io.newInputFile(location).newStream()) {
            in.seek(3);
            assertThat(in.read()).isEqualTo(4);
            assertThat(in.getPos()).isEqualTo(4);
        }
        assertThatThrownBy(out::create)
                .isInstanceOf(AlreadyExistsException.class)
                .hasMessageContaining(location);
        try (PositionOutputStream o = out.createOrOverwrite()) {
            o.write(9);
        }
        try (InputStream in = io.newInputFile(location).newStream()) {
            assertThat(in.readAllBytes()).containsExactly(9);
        }
        try (var files = Files.list(dir.resolve("a/b"))) {
            assertThat(files).as("no temporary file left").hasSize(1);
        }
        io.deleteFile(location);
        assertThatThrownBy(() -> io.newInputFile(location).getLength()).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> io.newInputFile("s3://b/k")).hasMessageContaining("s3://b/k");
    }
}
