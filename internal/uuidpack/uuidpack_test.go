package uuidpack

import "testing"

func TestPackFormatRoundTrip(t *testing.T) {
	var b [16]byte
	const u = "0f8e2c1a-9b3d-4e5f-a6b7-c8d9e0f1a2b3"
	if !Pack(b[:], u) || Format(b[:]) != u {
		t.Fatalf("round trip of %s: %x -> %s", u, b, Format(b[:]))
	}
	for _, s := range []string{
		"0F8E2C1A-9B3D-4E5F-A6B7-C8D9E0F1A2B3", // upper case would not come back the same
		"0f8e2c1a9b3d4e5fa6b7c8d9e0f1a2b3",     // no dashes
		"0f8e2c1a-9b3d-4e5f-a6b7-c8d9e0f1a2bz", // not hex
		"nouuid-0f8e2c1a",
		"",
	} {
		if Pack(b[:], s) {
			t.Errorf("%q was packed", s)
		}
	}
}
