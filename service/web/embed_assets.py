"""Writes a C++ file holding the map page's files (HTML, JS, CSS) as
string constants, so trackd serves its page with nothing installed beside
it but Leaflet. Usage: embed_assets.py OUT.cc FILE..."""
import os
import sys

TYPES = {".html": "text/html; charset=utf-8",
         ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8",
         ".svg": "image/svg+xml"}


def literal(data):
    # Octal escapes for everything but plain printable ASCII: no trigraph,
    # no escape that runs into the next character.
    out = []
    for b in data:
        c = chr(b)
        if c in '"\\?' or b < 0x20 or b > 0x7e:
            out.append("\\%03o" % b)
        else:
            out.append(c)
    return "".join(out)


def main():
    out_path, files = sys.argv[1], sys.argv[2:]
    rows = []
    for f in files:
        name = os.path.basename(f)
        path = "/" if name == "index.html" else "/static/" + name
        data = open(f, "rb").read()
        kind = TYPES[os.path.splitext(name)[1]]
        rows.append('  {"%s", "%s",\n   std::string_view("%s", %d)},'
                    % (path, kind, literal(data), len(data)))
    with open(out_path, "w") as out:
        out.write('#include "service/web/map_assets.h"\n\n'
                  "namespace trackdb::web {\n\n"
                  "const MapAsset kMapAssets[] = {\n%s\n};\n"
                  "const size_t kMapAssetCount = %d;\n\n"
                  "}  // namespace trackdb::web\n" % ("\n".join(rows), len(rows)))


if __name__ == "__main__":
    main()
