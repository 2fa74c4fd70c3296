// Command independent checks conform's signed results with sigstore-go's
// verifier, offline, with nothing but the public key: code this project did
// not write judges what conform verify judges. It lives in a test-only module
// of its own so the conform module never depends on sigstore-go.
//
// Usage:
//
//	independent -key PUB.pem -cases FILE
//
// FILE holds one case a line: a bundle path, a tab, and the path of a report
// file the bundle must cover (or "-" for none). For each case one line is
// printed, in order: "ACCEPT" or "REFUSE: why". The exit code is 0 when every
// case was judged, 2 on a usage error.
package main

import (
	"bufio"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// predicateType is the in-toto test-result predicate conform signs.
const predicateType = "https://in-toto.io/attestation/test-result/v0.1"

func main() {
	keyPath := flag.String("key", "", "PEM public key (PKIX) the bundles must be signed with")
	cases := flag.String("cases", "", "file of cases: bundle path, tab, report path or -")
	flag.Parse()
	if *keyPath == "" || *cases == "" {
		fmt.Fprintln(os.Stderr, "independent: -key and -cases are required")
		os.Exit(2)
	}
	v, err := newVerifier(*keyPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "independent:", err)
		os.Exit(2)
	}
	f, err := os.Open(*cases)
	if err != nil {
		fmt.Fprintln(os.Stderr, "independent:", err)
		os.Exit(2)
	}
	defer f.Close()
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		bundlePath, artifact, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			fmt.Fprintln(os.Stderr, "independent: a case line wants a tab")
			os.Exit(2)
		}
		if err := v.check(bundlePath, artifact); err != nil {
			fmt.Fprintln(out, "REFUSE:", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		fmt.Fprintln(out, "ACCEPT")
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "independent:", err)
		os.Exit(2)
	}
}

// checker is sigstore-go's verifier trusting one public key under its hint.
type checker struct {
	v    *verify.Verifier
	hint string
}

func newVerifier(keyPath string) (*checker, error) {
	data, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block in the key file")
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	sv, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return nil, err
	}
	// The bundle names its key by hint: cosign's, base64 of the sha256 of the
	// key's PKIX DER. Only that hint finds the trusted key.
	sum := sha256.Sum256(block.Bytes)
	hint := base64.StdEncoding.EncodeToString(sum[:])
	tm := root.NewTrustedPublicKeyMaterialFromMapping(map[string]*root.ExpiringKey{hint: root.NewExpiringKey(sv, time.Time{}, time.Time{})})
	v, err := verify.NewVerifier(tm, verify.WithNoObserverTimestamps())
	if err != nil {
		return nil, err
	}
	return &checker{v: v, hint: hint}, nil
}

// check verifies one bundle, and that the report file (when named) is one of
// its subjects.
func (c *checker) check(bundlePath, artifact string) error {
	b, err := bundle.LoadJSONFromPath(bundlePath)
	if err != nil {
		return err
	}
	artifactOpt := verify.WithoutArtifactUnsafe()
	if artifact != "-" {
		f, err := os.Open(artifact)
		if err != nil {
			return err
		}
		defer f.Close()
		artifactOpt = verify.WithArtifact(f)
	}
	res, err := c.v.Verify(b, verify.NewPolicy(artifactOpt, verify.WithKey()))
	if err != nil {
		return err
	}
	if res.Statement == nil || res.Statement.GetPredicateType() != predicateType {
		return fmt.Errorf("not a %s statement", predicateType)
	}
	return nil
}
