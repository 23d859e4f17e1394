package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"unsafe"
)

// Binary format of the built-in model (all integers little-endian):
//
//	magic      "CAIRNLSA"
//	u32        format version (= modelVersion)
//	u32 dims, u32 vocab, u32 trainDocs, u32 flags (0)
//	f32 × dims            singular values
//	vocab × (uvarint len, bytes)   terms
//	f32 × vocab           per-term quantisation scale
//	i8  × vocab×dims      term vectors, value = q × scale
//	u32        CRC-32 (IEEE) of everything above
//
// The model hash in ID() is the SHA-256 of everything above the CRC.

const modelMagic = "CAIRNLSA"

const (
	maxModelDims  = 4096
	maxModelVocab = 4 << 20
)

// ErrCorruptModel is returned (wrapped) by LoadModel for bytes that are not
// a valid model.
var ErrCorruptModel = errors.New("corrupt built-in embedding model")

// newModel quantises proj to int8 rows (so that a trained model and the same
// model loaded from MarshalBinary are bit-identical), and computes the hash
// and ID.
func newModel(dims int, terms []string, index map[string]int32, proj []float32, sigma []float32, trainDocs int) (*Model, error) {
	scales := make([]float32, len(terms))
	q8 := make([]int8, len(terms)*dims)
	for t := range terms {
		row := proj[t*dims : (t+1)*dims]
		var mx float32
		for _, v := range row {
			mx = max(mx, float32(math.Abs(float64(v))))
		}
		scale := mx / 127
		scales[t] = scale
		for i, v := range row {
			var q float64
			if scale > 0 {
				q = math.Round(float64(v / scale))
			}
			q8[t*dims+i] = int8(q)
		}
	}
	m := &Model{dims: dims, terms: terms, index: index, q: q8, scales: scales, sigma: sigma, trainDocs: trainDocs}
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, err
	}
	m.setHash(b[:len(b)-4])
	return m, nil
}

func (m *Model) setHash(payload []byte) {
	sum := sha256.Sum256(payload)
	m.hash = hex.EncodeToString(sum[:6])
	m.id = fmt.Sprintf("cairn-lsa:v%d:%d:%s", modelVersion, m.dims, m.hash)
}

// MarshalBinary encodes the model in a versioned, checksummed format (about
// vocab×(dims+12) bytes: ~8 MB for 30k terms × 256 dims).
func (m *Model) MarshalBinary() ([]byte, error) {
	size := len(modelMagic) + 20 + 4*m.dims + 5*len(m.terms) + len(m.terms)*(m.dims+4) + 4
	for _, t := range m.terms {
		size += len(t)
	}
	b := make([]byte, 0, size)
	b = append(b, modelMagic...)
	for _, v := range []uint32{modelVersion, uint32(m.dims), uint32(len(m.terms)), uint32(m.trainDocs), 0} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	for _, s := range m.sigma {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for _, t := range m.terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	for _, s := range m.scales {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
	}
	for _, v := range m.q {
		b = append(b, byte(v))
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	return b, nil
}

// LoadModel decodes bytes written by MarshalBinary, checking magic, version,
// checksum and every length. Errors wrap ErrCorruptModel (or say the format
// is newer than this build) and suggest retraining.
func LoadModel(b []byte) (*Model, error) { return loadModel(b, "") }

// LoadModelID is LoadModel for bytes known to be the model id (a cache cairn
// wrote itself): the checksum is still verified, the digest is not
// recomputed. b must not be modified afterwards.
func LoadModelID(b []byte, id string) (*Model, error) {
	if !strings.HasPrefix(id, "cairn-lsa:") || strings.Count(id, ":") != 3 {
		return nil, fmt.Errorf("%w: %q is not a built-in model id", ErrCorruptModel, id)
	}
	return loadModel(b, id)
}

func loadModel(b []byte, trustedID string) (*Model, error) {
	dims, vocab, trainDocs, err := checkModelHeader(b)
	if err != nil {
		return nil, err
	}
	body := b[modelHeaderLen : len(b)-4]
	need := 4*dims + vocab*(4+dims)
	if len(body) < need+vocab {
		return nil, corruptModel("%d bytes too short for %d terms × %d dims", len(b), vocab, dims)
	}
	m := &Model{dims: dims, trainDocs: trainDocs, sigma: make([]float32, dims)}
	off := 0
	for i := range m.sigma {
		m.sigma[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[off:]))
		off += 4
	}
	if off, err = m.readTerms(body, off, vocab); err != nil {
		return nil, err
	}
	if len(body)-off != vocab*(4+dims) {
		return nil, corruptModel("%d trailing bytes where %d were expected", len(body)-off, vocab*(4+dims))
	}
	if off, err = m.readScales(body, off, vocab); err != nil {
		return nil, err
	}
	// The rows stay int8, in the caller's bytes: nothing to decode.
	m.q = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(body[off:]))), vocab*dims)
	if trustedID != "" {
		m.id = trustedID
		m.hash = trustedID[strings.LastIndexByte(trustedID, ':')+1:]
	} else {
		m.setHash(b[:len(b)-4])
	}
	return m, nil
}

// modelHeaderLen is the length of the magic, version, dims, vocabulary
// size, training document count and a reserved word.
const modelHeaderLen = len(modelMagic) + 20

// corruptModel is the error for a model that fails a check.
func corruptModel(format string, args ...any) error {
	return fmt.Errorf("%w: %s; retrain the built-in embedder to replace it", ErrCorruptModel, fmt.Sprintf(format, args...))
}

// checkModelHeader checks the magic, version, checksum and sizes of a
// serialised model and returns its sizes.
func checkModelHeader(b []byte) (dims, vocab, trainDocs int, err error) {
	if len(b) < modelHeaderLen+4 {
		return 0, 0, 0, corruptModel("only %d bytes", len(b))
	}
	if string(b[:len(modelMagic)]) != modelMagic {
		return 0, 0, 0, corruptModel("not a cairn-lsa model (bad magic %q)", b[:len(modelMagic)])
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32(b[off:]) }
	version := u32(len(modelMagic))
	if version != modelVersion {
		return 0, 0, 0, fmt.Errorf("embed: built-in model format v%d is not supported by this cairn (v%d): retrain the built-in embedder, or upgrade cairn if it is newer", version, modelVersion)
	}
	if got, want := crc32.ChecksumIEEE(b[:len(b)-4]), u32(len(b)-4); got != want {
		return 0, 0, 0, corruptModel("checksum mismatch (%08x, stored %08x)", got, want)
	}
	dims, vocab, trainDocs = int(u32(12)), int(u32(16)), int(u32(20))
	if dims < 1 || dims > maxModelDims {
		return 0, 0, 0, corruptModel("dims %d out of range 1..%d", dims, maxModelDims)
	}
	if vocab < 1 || vocab > maxModelVocab {
		return 0, 0, 0, corruptModel("vocabulary size %d out of range", vocab)
	}
	return dims, vocab, trainDocs, nil
}

// readTerms decodes the vocab length-prefixed terms at body[off:] into
// m.terms and m.index and returns the offset after them.
func (m *Model) readTerms(body []byte, off, vocab int) (int, error) {
	m.terms = make([]string, vocab)
	m.index = make(map[string]int32, vocab)
	for i := range m.terms {
		n, w := binary.Uvarint(body[off:])
		if w <= 0 || n == 0 || n > 1024 || off+w+int(n) > len(body) {
			return 0, corruptModel("bad length of term %d", i)
		}
		off += w
		t := string(body[off : off+int(n)])
		off += int(n)
		if _, dup := m.index[t]; dup {
			return 0, corruptModel("term %q appears twice", t)
		}
		m.terms[i] = t
		m.index[t] = int32(i)
	}
	return off, nil
}

// readScales decodes the vocab per-term scales at body[off:] into m.scales
// and returns the offset after them.
func (m *Model) readScales(body []byte, off, vocab int) (int, error) {
	m.scales = make([]float32, vocab)
	for i := range m.scales {
		s := math.Float32frombits(binary.LittleEndian.Uint32(body[off:]))
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || s < 0 {
			return 0, corruptModel("bad scale for term %q", m.terms[i])
		}
		m.scales[i] = s
		off += 4
	}
	return off, nil
}
