package index

import (
	"bytes"
	"database/sql/driver"
	_ "embed"
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
// bytes), or s2TextMagic and s2DataMagic, S2 against a dictionary built
// into cairn (entries' text and render data: short values share
// Claude Code's and cairn's boilerplate — JSON keys, tool names, tool
// results' preambles — that a value alone is too short to compress).
// Anything else (TEXT, or a BLOB without a magic, as render data written
// before compression was added) is returned unchanged.

const (
	zMagic      = "\x00cz1"
	s2Magic     = "\x00cs1"
	s2TextMagic = "\x00ct1" // S2 with textDict
	s2DataMagic = "\x00cd1" // S2 with dataDict
	// zMin is the shortest value worth compressing: below it the
	// formats' overhead eats the gain.
	zMin = 96
	// s2Below: shorter values are compressed with S2, longer with DEFLATE.
	// On the 1 GB corpus: 0.4 s instead of 3.4 s for 97 MB of values, 65 MB
	// stored instead of 54 MB.
	s2Below = 2048
)

// The dictionaries of s2TextMagic and s2DataMagic, written by
// bench/compressdict from public transcripts (fragments found in at least
// three projects' values). A stored value needs its dictionary byte for
// byte, forever: never edit these files (TestCompressDictsUnchanged); a
// better dictionary gets a file and a magic of its own.
var (
	//go:embed compress_text1.dict
	textDictBytes []byte
	//go:embed compress_data1.dict
	dataDictBytes []byte

	textDict = s2.MakeDict(textDictBytes, nil)
	dataDict = s2.MakeDict(dataDictBytes, nil)
)

// s2Format is one way of storing a short value with S2.
type s2Format struct {
	magic string
	dict  *s2.Dict // nil: none
}

var (
	s2Plain = s2Format{s2Magic, nil}
	s2Text  = s2Format{s2TextMagic, textDict}
	s2Data  = s2Format{s2DataMagic, dataDict}
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
			out, err = s2Plain.decode(b)
		case bytes.HasPrefix(b, []byte(s2TextMagic)):
			out, err = s2Text.decode(b)
		case bytes.HasPrefix(b, []byte(s2DataMagic)):
			out, err = s2Data.decode(b)
		default:
			return args[0], nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: a compressed value does not decompress (%w); run `cairn doctor --full` for what to do", ErrCorrupt, err)
		}
		return string(out), nil
	})
}

// decode inflates b, a value stored in format f (magic included).
func (f s2Format) decode(b []byte) ([]byte, error) {
	b = b[len(f.magic):]
	// Only values under s2Below are written as S2: a damaged header
	// claiming more must not make the decoder allocate it.
	if n, err := s2.DecodedLen(b); err != nil {
		return nil, fmt.Errorf("S2 value length: %w", err)
	} else if n >= s2Below {
		return nil, fmt.Errorf("S2 value claims %d bytes", n)
	}
	if f.dict == nil {
		return s2.Decode(nil, b)
	}
	return f.dict.Decode(nil, b)
}

// encode compresses b (shorter than s2Below) behind f's magic, or returns
// nil when that would not save at least an eighth.
func (f s2Format) encode(b []byte) []byte {
	out := make([]byte, len(f.magic)+s2.MaxEncodedLen(len(b)))
	copy(out, f.magic)
	var n int
	if f.dict == nil {
		n = len(f.magic) + len(s2.Encode(out[len(f.magic):], b))
	} else {
		n = len(f.magic) + len(f.dict.Encode(out[len(f.magic):], b))
	}
	if n > len(b)-len(b)/8 {
		return nil
	}
	return out[:n:n]
}

var deflaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// packText returns what to store for s, an entry's text: s itself when
// short or when compression does not pay, else the compressed BLOB.
func packText(s string) any {
	return packString(s, s2Text)
}

// packString is packText with the format for short values.
func packString(s string, short s2Format) any {
	if len(s) < zMin {
		return s
	}
	if b := deflate([]byte(s), short); b != nil {
		return b
	}
	return s
}

// packData is packText for render data (JSON bytes; nil stays NULL).
func packData(b []byte) any {
	if b == nil {
		return nil
	}
	return packString(string(b), s2Data)
}

// packBlob is packData for binary values: stored as a BLOB either way.
func packBlob(b []byte) any {
	if len(b) >= zMin {
		if z := deflate(b, s2Plain); z != nil {
			return z
		}
	}
	return b
}

// deflate compresses b behind a magic (S2 in format short when short, else
// DEFLATE), or returns nil when that would not save at least an eighth.
func deflate(b []byte, short s2Format) []byte {
	if len(b) < s2Below {
		return short.encode(b)
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
