package steps

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// FeatureSource is one feature file a run read: an embedded one, or one
// added from disk with Options.Features. Summary.Sources lists them in the
// order the run read them, so whoever attests a run can name exactly what
// it ran (the embedded bundle and every added file, each by its digest).
type FeatureSource struct {
	// Name is the feature's name in the reports and the console: the file
	// name of an embedded feature ("transfers.feature"), the path as given
	// on the command line for one from disk ("./refunds.feature",
	// "regressions/refunds.feature").
	Name string `json:"name"`
	// Path is the absolute path of a file read from disk; "" when embedded.
	Path string `json:"path,omitempty"`
	// Embedded is true for a feature of the binary's own bundle (features.FS).
	Embedded bool `json:"embedded"`
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string `json:"sha256"`

	data []byte
}

// featureSources reads the features of a run: the embedded ones (FS, in
// lexical order) unless FeaturesOnly, then the files and folders of
// Features in the order given, a folder's *.feature files in lexical
// order. A file given twice is read once. An unreadable path, a folder
// without feature files, or --features-only without --features is a usage
// error.
func featureSources(o Options) ([]FeatureSource, error) {
	if o.FeaturesOnly && len(o.Features) == 0 {
		return nil, fmt.Errorf("%w: --features-only needs --features", ErrUsage)
	}
	var out []FeatureSource
	names := map[string]bool{}
	if !o.FeaturesOnly {
		err := fs.WalkDir(o.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".feature") {
				return err
			}
			data, err := fs.ReadFile(o.FS, p)
			if err != nil {
				return err
			}
			names[p] = true
			out = append(out, FeatureSource{Name: p, Embedded: true, SHA256: digest(data), data: data})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: read the embedded features: %w", ErrUsage, err)
		}
	}
	seen := map[string]bool{} // absolute paths read
	for _, root := range o.Features {
		files, err := featureFiles(root)
		if err != nil {
			return nil, fmt.Errorf("%w: --features %s: %w", ErrUsage, root, err)
		}
		for _, f := range files {
			abs, err := filepath.Abs(f)
			if err != nil {
				return nil, fmt.Errorf("%w: --features %s: %w", ErrUsage, f, err)
			}
			if seen[abs] {
				continue
			}
			seen[abs] = true
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("%w: --features: %w", ErrUsage, err)
			}
			name := diskName(f)
			if names[name] {
				return nil, fmt.Errorf("%w: --features: two feature files are named %s", ErrUsage, name)
			}
			names[name] = true
			out = append(out, FeatureSource{Name: name, Path: abs, SHA256: digest(data), data: data})
		}
	}
	return out, nil
}

// featureFiles lists the file root names, or the *.feature files under the
// folder root names, in lexical order.
func featureFiles(root string) ([]string, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{root}, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".feature") {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("the folder holds no *.feature file")
	}
	slices.Sort(files)
	return files, nil
}

// diskName is how a feature from disk is named in the reports: its path as
// given, with forward slashes, and "./" before a bare file name so it never
// reads as an embedded feature.
func diskName(p string) string {
	p = filepath.ToSlash(p)
	if !strings.Contains(p, "/") {
		p = "./" + p
	}
	return p
}

// EmbeddedDigest is the digest of the embedded features among srcs: the
// SHA-256 of their lines "<sha256>  <name>\n" in order, which is what
// "sha256sum *.feature | sha256sum" prints in the features folder of the
// source the binary was built from. "" when srcs has no embedded feature.
func EmbeddedDigest(srcs []FeatureSource) string {
	h := sha256.New()
	n := 0
	for _, s := range srcs {
		if s.Embedded {
			fmt.Fprintf(h, "%s  %s\n", s.SHA256, s.Name)
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// featureContents hands the sources to godog, which parses them in this
// order with one id sequence, as readCatalog does.
func featureContents(srcs []FeatureSource) []godog.Feature {
	out := make([]godog.Feature, len(srcs))
	for i, s := range srcs {
		out[i] = godog.Feature{Name: s.Name, Contents: bytes.Clone(s.data)}
	}
	return out
}
