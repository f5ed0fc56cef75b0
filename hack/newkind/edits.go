package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// edit is a file the scaffolder changes at one place.
type edit struct {
	path, what string
	data       []byte
}

// edits are the kind's registrations: its types in the API package's scheme (addKnownTypes)
// and its registration in the operand package's Registrations, or, for a new operand package,
// the package's Registrations in pkg/operator/operands.All.
func (n *names) edits(root string) ([]edit, error) {
	register := filepath.Join("pkg/apis", n.GroupDir, "register.go")
	scheme, err := insertArgs(root, register, "addKnownTypes", isCallOf("AddKnownTypes"),
		fmt.Sprintf("&%s{},\n&%sList{},", n.Kind, n.Kind))
	if err != nil {
		return nil, err
	}
	out := []edit{{register, "addKnownTypes: &" + n.Kind + "{}, &" + n.Kind + "List{}", scheme}}
	if n.NewOperand {
		all := "pkg/operator/operands/operands.go"
		data, err := insertArgs(root, all, "All", isCallOf("Concat"), n.Operand+".Registrations(),")
		if err == nil {
			data, err = addImport(all, data, n.Module, n.Module+"/pkg/operator/operands/"+n.Operand)
		}
		if err != nil {
			return nil, err
		}
		return append(out, edit{all, "All: " + n.Operand + ".Registrations()", data}), nil
	}
	file, err := funcFile(root, filepath.Join("pkg/operator/operands", n.Operand), "Registrations")
	if err != nil {
		return nil, err
	}
	data, err := insertArgs(root, file, "Registrations", isReturnedList, n.Lower+"Registration(),")
	if err != nil {
		return nil, err
	}
	return append(out, edit{file, "Registrations: " + n.Lower + "Registration()", data}), nil
}

// isCallOf matches a call of a function or method of that name.
func isCallOf(name string) func(ast.Node) (token.Pos, bool) {
	return func(node ast.Node) (token.Pos, bool) {
		call, ok := node.(*ast.CallExpr)
		if !ok {
			return token.NoPos, false
		}
		ok = false
		switch f := call.Fun.(type) {
		case *ast.SelectorExpr:
			ok = f.Sel.Name == name
		case *ast.Ident:
			ok = f.Name == name
		}
		return call.Rparen, ok
	}
}

// isReturnedList matches the composite literal a return statement returns
// (return []registry.Registration{...}).
func isReturnedList(node ast.Node) (token.Pos, bool) {
	ret, ok := node.(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return token.NoPos, false
	}
	lit, ok := ret.Results[0].(*ast.CompositeLit)
	if !ok {
		return token.NoPos, false
	}
	return lit.Rbrace, true
}

// insertArgs adds text as the last elements of the list that match finds in the function fn of
// the file rel (the closing parenthesis or brace's position): on a line of their own when the
// list spans lines. The function must hold exactly one such list: the place of the edit is then
// not a guess.
func insertArgs(root, rel, fn string, match func(ast.Node) (token.Pos, bool), text string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var decl *ast.FuncDecl
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == fn {
			decl = fd
		}
	}
	if decl == nil {
		return nil, fmt.Errorf("%s: no func %s", rel, fn)
	}
	var found []token.Pos
	ast.Inspect(decl.Body, func(node ast.Node) bool {
		if _, ok := node.(*ast.FuncLit); ok {
			return false // a closure's returns are not the function's
		}
		if node != nil {
			if pos, ok := match(node); ok {
				found = append(found, pos)
			}
		}
		return true
	})
	if len(found) != 1 {
		return nil, fmt.Errorf("%s: func %s has %d places for the new kind, want 1: add %q there by hand", rel, fn, len(found), text)
	}
	at := fset.Position(found[0]).Offset
	lineStart := bytes.LastIndexByte(src[:at], '\n') + 1
	var out []byte
	if strings.TrimSpace(string(src[lineStart:at])) == "" {
		// The list closes on a line of its own: the new elements go on the lines before it.
		out = slices.Concat(src[:lineStart], []byte(text+"\n"), src[lineStart:])
	} else {
		before := strings.TrimRight(string(src[:at]), " \t\n")
		sep := ", "
		if strings.HasSuffix(before, ",") || strings.HasSuffix(before, "{") || strings.HasSuffix(before, "(") {
			sep = ""
		}
		out = slices.Concat([]byte(before+sep), []byte(strings.TrimSuffix(text, ",")), src[at:])
	}
	formatted, err := format.Source(out)
	if err != nil {
		return nil, fmt.Errorf("%s: after the edit: %w", rel, err)
	}
	return formatted, nil
}

// addImport adds an import of the module's own (importPath) to the file's imports, in order
// among the module's.
func addImport(rel string, src []byte, module, importPath string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	at, text := -1, ""
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		switch {
		case p == importPath:
			return src, nil
		case !strings.HasPrefix(p, module+"/"):
		case p < importPath:
			at, text = fset.Position(spec.End()).Offset, "\n\t"+strconv.Quote(importPath)
		case at < 0:
			at, text = fset.Position(spec.Pos()).Offset, strconv.Quote(importPath)+"\n\t"
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("%s imports nothing of %s", rel, module)
	}
	return format.Source(slices.Concat(src[:at], []byte(text), src[at:]))
}

// funcFile is the file of the package directory dir that declares the function fn.
func funcFile(root, dir, fn string) (string, error) {
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		return "", err
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == fn {
				return filepath.Rel(root, file)
			}
		}
	}
	return "", fmt.Errorf("%s declares no func %s() []registry.Registration", dir, fn)
}
