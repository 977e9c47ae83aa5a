// vyre::dsl: typed C++ expression templates and the kernel builder that turn them into ir::program.
#pragma once

#include <vyre/dsl/expression.hpp>
#include <vyre/dsl/kernel.hpp>
#include <vyre/dsl/subgroup.hpp>
