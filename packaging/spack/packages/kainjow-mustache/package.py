# kainjow/Mustache, the header-only mustache library shakedown renders its reports with (Debian:
# libkainjow-mustache-dev). Spack's builtin repository has no package for it, so this repository
# carries one; it installs the header as include/kainjow/mustache.hpp, Debian's layout.

from spack.package import *


class KainjowMustache(Package):
    """Mustache text templates for modern C++ (header only)."""

    homepage = "https://github.com/kainjow/Mustache"
    url = "https://github.com/kainjow/Mustache/archive/v4.1.tar.gz"

    license("BSL-1.0")

    version("4.1", sha256="acd66359feb4318b421f9574cfc5a511133a77d916d0b13c7caa3783c0bfe167")

    def install(self, spec, prefix):
        mkdirp(prefix.include.kainjow)
        install("mustache.hpp", prefix.include.kainjow)
