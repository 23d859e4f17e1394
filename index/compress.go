package index

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/s2"
	"modernc.org/sqlite"
)

// Long entry text and render data are stored compressed: tool output,
// long replies and tool input JSON are most of the store's bytes and shrink
// about 2x. Compression is invisible above the table: the rows live in
// entries_raw, and entries is a view that inflates both columns through the
// SQL function cairn_unz, so every query (including those of other
// packages' SQL in index/) reads plain text.
//
// A compressed value is a BLOB starting with a magic that names its format:
// zMagic, DEFLATE (values from s2Below bytes up, and everything written
// before S2 was added), or s2Magic, S2 (shorter values: most entries are a
// few hundred bytes to 2 KB, where DEFLATE spends its time building a
// Huffman table per value: S2 is 8x faster there for about a fifth more
// bytes). Anything else (TEXT, or a BLOB without a magic, as render data
// written before compression was added) is returned unchanged.

const (
	zMagic  = "\x00cz1"
	s2Magic = "\x00cs1"
	// zMin is the shortest value worth compressing: below it the
	// formats' overhead eats the gain.
	zMin = 96
	// s2Below: shorter values are compressed with S2, longer with DEFLATE.
	// On the 1 GB corpus: 0.4 s instead of 3.4 s for 97 MB of values, 65 MB
	// stored instead of 54 MB.
	s2Below = 2048
)

func init() {
	sqlite.MustRegisterDeterministicScalarFunction("cairn_unz", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		b, ok := args[0].([]byte)
		if !ok {
			return args[0], nil
		}
		var out []byte
		var err error
		switch {
		case bytes.HasPrefix(b, []byte(zMagic)):
			out, err = inflate(b[len(zMagic):])
		case bytes.HasPrefix(b, []byte(s2Magic)):
			// Only values under s2Below are written as S2: a damaged header
			// claiming more must not make the decoder allocate it.
			if n, derr := s2.DecodedLen(b[len(s2Magic):]); derr != nil {
				err = fmt.Errorf("S2 value length: %w", derr)
				break
			} else if n >= s2Below {
				err = fmt.Errorf("S2 value claims %d bytes", n)
				break
			}
			out, err = s2.Decode(nil, b[len(s2Magic):])
		default:
			return args[0], nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: a compressed value does not decompress (%w); run `cairn doctor --full` for what to do", ErrCorrupt, err)
		}
		return string(out), nil
	})
}

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// packText returns what to store for s: s itself when short or when
// compression does not pay, else the compressed BLOB.
func packText(s string) any {
	if len(s) < zMin {
		return s
	}
	if b := deflate([]byte(s)); b != nil {
		return b
	}
	return s
}

// packData is packText for render data (JSON bytes; nil stays NULL).
func packData(b []byte) any {
	if b == nil {
		return nil
	}
	return packText(string(b))
}

// packBlob is packData for binary values: stored as a BLOB either way.
func packBlob(b []byte) any {
	if len(b) >= zMin {
		if z := deflate(b); z != nil {
			return z
		}
	}
	return b
}

// deflate compresses b behind a magic (S2 when short, else DEFLATE), or
// returns nil when that would not save at least an eighth.
func deflate(b []byte) []byte {
	if len(b) < s2Below {
		out := make([]byte, len(s2Magic)+s2.MaxEncodedLen(len(b)))
		copy(out, s2Magic)
		n := len(s2Magic) + len(s2.Encode(out[len(s2Magic):], b))
		if n > len(b)-len(b)/8 {
			return nil
		}
		return out[:n:n]
	}
	var buf bytes.Buffer
	buf.Grow(len(b)/2 + len(zMagic))
	buf.WriteString(zMagic)
	w := deflaters.Get().(*flate.Writer)
	w.Reset(&buf)
	_, err := w.Write(b)
	if err == nil {
		err = w.Close()
	}
	deflaters.Put(w)
	if err != nil || buf.Len() > len(b)-len(b)/8 {
		return nil
	}
	return buf.Bytes()
}

func inflate(b []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	return io.ReadAll(r)
}
