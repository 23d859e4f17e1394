// Package ollama is a small client for the parts of the Ollama HTTP API
// that cairn uses (/api/version, /api/tags, /api/show, /api/embed and
// /api/chat), and the one parser of Ollama host addresses (the
// ollama.host setting and $OLLAMA_HOST).
//
// It depends on the standard library only, so every cairn package may
// import it.
package ollama

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// DefaultPort is the port Ollama listens on unless told otherwise.
const DefaultPort = "11434"

// DefaultHost is where Ollama listens by default.
const DefaultHost = "http://127.0.0.1:" + DefaultPort

// EnvHost is the environment variable the Ollama CLI and server read.
const EnvHost = "OLLAMA_HOST"

// ParseHost turns an Ollama host address into the base URL of its API. It
// accepts what $OLLAMA_HOST accepts, with the same meaning as the ollama
// CLI, so one value reaches the same server from both:
//
//	""                       http://127.0.0.1:11434
//	"gpu-box"                http://gpu-box:11434
//	"gpu-box:8080"           http://gpu-box:8080
//	":8080"                  http://127.0.0.1:8080
//	"::1", "[::1]"           http://[::1]:11434
//	"[::1]:8080"             http://[::1]:8080
//	"http://gpu-box:11434"   http://gpu-box:11434
//	"http://gpu-box"         http://gpu-box:80 (an explicit scheme means its own default port)
//	"https://ollama.example" https://ollama.example:443
//	"http://h:1234/prefix"   http://h:1234/prefix (behind a reverse proxy)
//	"ollama.com"             https://ollama.com:443
//
// Anything else (another scheme, a bad port, a user name, a query) is an
// error that says what to write instead.
func ParseHost(s string) (*url.URL, error) {
	bad := func(why string) error {
		return fmt.Errorf("ollama host %q: %s (write e.g. 127.0.0.1:%s or http://gpu-box:%s)", s, why, DefaultPort, DefaultPort)
	}
	scheme, rest, defPort, ok := splitScheme(strings.TrimSpace(s))
	if !ok {
		return nil, bad("the scheme must be http or https")
	}
	if strings.ContainsAny(rest, "?#@ \t\r\n") {
		return nil, bad("not a host address")
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, port, ok := splitHostPort(hostport, defPort)
	if !ok {
		return nil, bad("not a host address")
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, bad(fmt.Sprintf("bad port %q", port))
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	return u, nil
}

// splitScheme splits a trimmed host address into its scheme (lower case)
// and the rest, and says which port the host means when it names none: an
// explicit scheme brings its own default port, a bare host Ollama's. A
// bare "ollama.com" means the hosted service. ok is false for a scheme
// other than http or https.
func splitScheme(s string) (scheme, rest, defPort string, ok bool) {
	scheme, rest, explicit := strings.Cut(s, "://")
	switch {
	case !explicit && s == "ollama.com":
		return "https", "ollama.com:443", DefaultPort, true
	case !explicit:
		return "http", s, DefaultPort, true
	case strings.EqualFold(scheme, "http"):
		return "http", rest, "80", true
	case strings.EqualFold(scheme, "https"):
		return "https", rest, "443", true
	}
	return "", "", "", false
}

// splitHostPort splits "host", "host:port", "[v6]", "[v6]:port" or a bare
// IPv6 address into host and port, defaulting the host to 127.0.0.1 and
// the port to defPort. ok is false when it is not a host address.
func splitHostPort(hostport, defPort string) (host, port string, ok bool) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		// No port: "host", "[::1]", or an IPv6 address without brackets.
		host, port = hostport, defPort
		if b, bracketed := strings.CutPrefix(host, "["); bracketed {
			if host, ok = strings.CutSuffix(b, "]"); !ok {
				return "", "", false
			}
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, validHost(host, strings.HasPrefix(hostport, "["))
}

// validHost reports whether host (without brackets or port) can be a host
// name or address: only an IPv6 address, with an optional %zone, may have
// colons or have been written in brackets.
func validHost(host string, bracketed bool) bool {
	if strings.ContainsAny(host, "[]") {
		return false
	}
	if !bracketed && !strings.Contains(host, ":") {
		return true
	}
	ip, _, _ := strings.Cut(host, "%")
	return strings.Contains(ip, ":") && net.ParseIP(ip) != nil
}

// ResolveHost parses the configured host, or $OLLAMA_HOST when it is
// empty, or else the default.
func ResolveHost(configured string) (*url.URL, error) {
	if strings.TrimSpace(configured) == "" {
		configured = os.Getenv(EnvHost)
	}
	return ParseHost(configured)
}
