package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// makeFolderOf creates the folder a file path names, with its parents, so
// that a command run in an empty folder can write out/conform.json.
func makeFolderOf(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the folder of %s: %w", path, err)
	}
	return nil
}

// makeReportFolders creates the folder of every report file a --format
// names (json:FILE, junit:FILE, cucumber:FILE, html:FILE) before the first
// request, so a run never ends failing to write what it tested.
func makeReportFolders(formats []string) error {
	for _, f := range formats {
		if _, file, ok := strings.Cut(f, ":"); ok && file != "" {
			if err := makeFolderOf(file); err != nil {
				return fmt.Errorf("--format %s: %w", f, err)
			}
		}
	}
	return nil
}
