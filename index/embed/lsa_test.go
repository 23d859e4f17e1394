package embed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tinyCorpus has two topics. Only the websocket docs mention sockets and
// connections, so "socket connection drops" should land near
// "websocket reconnect" even though the target shares no query word.
var tinyCorpus = []string{
	"The websocket reconnect logic retries with exponential backoff when the socket connection drops.",
	"When the websocket connection drops the client must reconnect and resubscribe to channels.",
	"Socket connection drops during deploys; the websocket client reconnects with jitter.",
	"Added a heartbeat ping so the websocket detects a dead socket connection and reconnects.",
	"websocket reconnect backoff heartbeat",
	"Run the database migration to add the sessions table and an index on user_id.",
	"The migration failed because the database schema was out of date; roll back and migrate again.",
	"Write a down migration for the schema change so the database can be rolled back.",
	"database migration schema sessions table index",
	"Use a transaction around each migration so a failed schema change leaves the database intact.",
}

func trainTiny(t testing.TB) *Model {
	t.Helper()
	m, err := Train(tinyCorpus, TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func embedOne(t testing.TB, m Embedder, kind Kind, text string) []float32 {
	t.Helper()
	v, err := m.Embed(context.Background(), kind, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func TestLSAQualityTiny(t *testing.T) {
	m := trainTiny(t)
	if m.Dims() < 2 || m.Dims() > len(tinyCorpus) {
		t.Fatalf("dims %d for a %d-doc corpus", m.Dims(), len(tinyCorpus))
	}
	ws := embedOne(t, m, Document, "websocket reconnect")
	db := embedOne(t, m, Document, "database migration")
	for _, q := range []string{"socket connection drops", "socket conection drop", "roll back the schema"} {
		qv := embedOne(t, m, Query, q)
		sw, sd := Cosine(qv, ws), Cosine(qv, db)
		t.Logf("%q: websocket %.3f, database %.3f", q, sw, sd)
		if q == "roll back the schema" {
			sw, sd = sd, sw
		}
		if sw <= sd {
			t.Errorf("%q ranks the wrong topic first (%.3f vs %.3f)", q, sw, sd)
		}
	}
}

func TestLSARoundTripAndDeterminism(t *testing.T) {
	m1 := trainTiny(t)
	m2 := trainTiny(t)
	if m1.ID() != m2.ID() {
		t.Fatalf("training is not deterministic: %s vs %s", m1.ID(), m2.ID())
	}
	b, err := m1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m2.MarshalBinary()
	if !slices.Equal(b, b2) {
		t.Fatal("two trainings marshal differently")
	}
	loaded, err := LoadModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.ID() != m1.ID() || loaded.Dims() != m1.Dims() {
		t.Fatalf("loaded %s/%d, trained %s/%d", loaded.ID(), loaded.Dims(), m1.ID(), m1.Dims())
	}
	// A cache cairn wrote itself loads by id: same model, digest skipped,
	// checksum still checked.
	byID, err := LoadModelID(slices.Clone(b), m1.ID())
	if err != nil || byID.ID() != m1.ID() || byID.Info().Hash != m1.Info().Hash {
		t.Fatalf("LoadModelID: %v, %v", byID, err)
	}
	if _, err := LoadModelID(b, "not-an-id"); !errors.Is(err, ErrCorruptModel) {
		t.Fatalf("a bad id: %v", err)
	}
	flipped := slices.Clone(b)
	flipped[len(flipped)/2] ^= 1
	if _, err := LoadModelID(flipped, m1.ID()); !errors.Is(err, ErrCorruptModel) {
		t.Fatalf("a flipped byte under a trusted id: %v", err)
	}
	texts := append(slices.Clone(tinyCorpus), "socket drops", "nothing known here zzz")
	for _, kind := range []Kind{Document, Query} {
		a, _ := m1.Embed(context.Background(), kind, texts)
		c, _ := loaded.Embed(context.Background(), kind, texts)
		d, _ := byID.Embed(context.Background(), kind, texts)
		for i := range a {
			if !slices.Equal(a[i], c[i]) || !slices.Equal(a[i], d[i]) {
				t.Fatalf("%v %d: vectors differ after round trip", kind, i)
			}
		}
	}
	// A different corpus is a different space.
	m3, err := Train(tinyCorpus[:8], TrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m3.ID() == m1.ID() {
		t.Fatal("retraining on other text kept the same ID")
	}
	// Worker count must not change the model.
	m4, err := Train(tinyCorpus, TrainOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m4.ID() != m1.ID() {
		t.Fatalf("1 worker gives %s, default gives %s", m4.ID(), m1.ID())
	}
}

func TestLSAVectors(t *testing.T) {
	m := trainTiny(t)
	vs, err := m.Embed(context.Background(), Document, []string{"websocket socket", "", "zzz qqq"})
	if err != nil {
		t.Fatal(err)
	}
	if n := Dot(vs[0], vs[0]); n < 0.999 || n > 1.001 {
		t.Errorf("not normalised: |v|² = %v", n)
	}
	if !IsZero(vs[1]) || !IsZero(vs[2]) {
		t.Error("texts without known terms should give zero vectors")
	}
	if _, ok := m.EmbedText(Query, "zzz"); ok {
		t.Error("EmbedText ok for unknown text")
	}
	if v, ok := m.EmbedText(Query, "websocket"); !ok || len(v) != m.Dims() {
		t.Error("EmbedText failed on a known word")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	many := make([]string, 1000)
	for i := range many {
		many[i] = tinyCorpus[i%len(tinyCorpus)]
	}
	if _, err := m.Embed(ctx, Document, many); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: got %v", err)
	}
	// Parallel and sequential paths agree.
	par, _ := m.Embed(context.Background(), Document, many)
	for i := 0; i < len(many); i += 97 {
		if !slices.Equal(par[i], embedOne(t, m, Document, many[i])) {
			t.Fatalf("parallel embedding of %d differs", i)
		}
	}
}

func TestLoadModelRejectsCorruptBytes(t *testing.T) {
	m := trainTiny(t)
	good, _ := m.MarshalBinary()
	cases := map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)/2],
		"magic":     append([]byte("NOTAMODL"), good[8:]...),
		"bitflip":   flip(good, len(good)/2),
		"version":   withVersion(good, 99),
	}
	for name, b := range cases {
		_, err := LoadModel(b)
		if err == nil {
			t.Errorf("%s: loaded corrupt model", name)
			continue
		}
		if name != "version" && !errors.Is(err, ErrCorruptModel) {
			t.Errorf("%s: error %v does not wrap ErrCorruptModel", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0x40
	return c
}

func withVersion(b []byte, v byte) []byte {
	c := slices.Clone(b)
	c[8] = v
	return c
}

func TestTrainErrors(t *testing.T) {
	if _, err := Train(nil, TrainOptions{}); err == nil {
		t.Error("training on nothing succeeded")
	}
	if _, err := Train([]string{"", "   ", "a b c"}, TrainOptions{}); err == nil {
		t.Error("training on no words succeeded")
	}
}

func TestSampler(t *testing.T) {
	run := func() []string {
		s := NewSampler(10, 8, 0)
		for i := range 1000 {
			s.Add(fmt.Sprintf("document number %d", i))
		}
		return s.Docs()
	}
	a, b := run(), run()
	if len(a) != 10 || !slices.Equal(a, b) {
		t.Fatalf("sampler not deterministic or wrong size: %q vs %q", a, b)
	}
	for _, d := range a {
		if len(d) > 8 {
			t.Fatalf("doc not clipped: %q", d)
		}
	}
}

func TestVectorHelpers(t *testing.T) {
	v := []float32{3, 4}
	Normalize(v)
	if v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("Normalize: %v", v)
	}
	if c := Cosine([]float32{1, 0}, []float32{0, 2}); c != 0 {
		t.Fatalf("Cosine orthogonal: %v", c)
	}
	if c := Cosine([]float32{1, 1}, []float32{2, 2}); c < 0.9999 {
		t.Fatalf("Cosine parallel: %v", c)
	}
	if Cosine([]float32{0, 0}, []float32{1, 1}) != 0 {
		t.Fatal("Cosine of zero vector")
	}
	in := []float32{1.5, -2, 0, 3.25e-7}
	out, err := DecodeVector(EncodeVector(in))
	if err != nil || !slices.Equal(in, out) {
		t.Fatalf("vector round trip: %v %v", out, err)
	}
	if b := EncodeVector([]float32{1}); b[0] != 0 || b[3] != 0x3f {
		t.Fatalf("not little-endian: % x", b)
	}
	if _, err := DecodeVector([]byte{1, 2, 3}); err == nil {
		t.Fatal("DecodeVector accepted 3 bytes")
	}
}

// FuzzLoadModel: any bytes either load into a model that embeds, or fail
// with ErrCorruptModel (or a version error); never a panic. LoadModelID
// (the model.bin cache) gives the same verdict.
func FuzzLoadModel(f *testing.F) {
	m, err := Train(tinyCorpus, TrainOptions{})
	if err != nil {
		f.Fatal(err)
	}
	b, _ := m.MarshalBinary()
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte("CAIRNLSA"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m1, err1 := LoadModel(slices.Clone(b))
		m2, err2 := LoadModelID(slices.Clone(b), "cairn-lsa:v1:8:abcdef012345")
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("LoadModel %v, LoadModelID %v", err1, err2)
		}
		if err1 != nil {
			if !errors.Is(err1, ErrCorruptModel) && !strings.Contains(err1.Error(), "not supported") {
				t.Fatalf("unexpected error: %v", err1)
			}
			return
		}
		for _, m := range []*Model{m1, m2} {
			if _, err := m.Embed(context.Background(), Query, []string{"socket drops reconnect", "zzzz"}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
