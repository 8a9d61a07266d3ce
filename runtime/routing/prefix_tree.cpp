#include "runtime/routing/prefix_tree.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace pagedserve::routing {
namespace {

std::size_t common_length(std::span<const token_id> a, std::span<const token_id> b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

std::size_t prefix_tree::match(std::span<const token_id> tokens) const {
  const node* at = root_.get();
  std::size_t matched = 0;
  while (matched < tokens.size()) {
    const auto child = at->children.find(tokens[matched]);
    if (child == at->children.end()) break;
    const std::size_t n = common_length(child->second->edge, tokens.subspan(matched));
    matched += n;
    if (n < child->second->edge.size()) break;  // diverges inside the edge
    at = child->second.get();
  }
  return matched;
}

// Cuts `child`'s edge after `at` tokens: a new node takes the first part and `child`
// hangs below it with the rest. Returns the new node.
prefix_tree::node* prefix_tree::split(node* child, std::size_t at) {
  node* parent = child->parent;
  std::unique_ptr<node>& slot = parent->children[child->edge.front()];
  auto mid = std::make_unique<node>();
  mid->edge.assign(child->edge.begin(), child->edge.begin() + static_cast<std::ptrdiff_t>(at));
  mid->parent = parent;
  mid->last_used = child->last_used;
  child->edge.erase(child->edge.begin(), child->edge.begin() + static_cast<std::ptrdiff_t>(at));
  child->parent = mid.get();
  std::unique_ptr<node> lower = std::exchange(slot, std::move(mid));
  node* mid_ptr = slot.get();
  mid_ptr->children.emplace(child->edge.front(), std::move(lower));
  return mid_ptr;
}

void prefix_tree::insert(std::span<const token_id> tokens, std::uint64_t tick) {
  node* at = root_.get();
  at->last_used = tick;
  std::size_t pos = 0;
  while (pos < tokens.size()) {
    const auto found = at->children.find(tokens[pos]);
    if (found == at->children.end()) {
      auto leaf = std::make_unique<node>();
      leaf->edge.assign(tokens.begin() + static_cast<std::ptrdiff_t>(pos), tokens.end());
      leaf->parent = at;
      leaf->last_used = tick;
      num_tokens_ += leaf->edge.size();
      node* leaf_ptr = leaf.get();
      at->children.emplace(tokens[pos], std::move(leaf));
      at = leaf_ptr;
      break;
    }
    node* child = found->second.get();
    const std::size_t n = common_length(child->edge, tokens.subspan(pos));
    if (n < child->edge.size()) child = split(child, n);
    child->last_used = tick;
    pos += n;
    at = child;
  }
  if (num_tokens_ > max_tokens_) evict(at);
}

// Drops least recently used leaves (and parents they leave childless) until the tree is
// 1/16 under its budget, so that the walk below runs once per that many inserted tokens,
// not on every insert. Never the node just inserted nor its ancestors (they keep a child).
void prefix_tree::evict(const node* keep) {
  const std::size_t target = max_tokens_ - max_tokens_ / 16;
  const auto older = [](const node* a, const node* b) { return a->last_used > b->last_used; };
  std::priority_queue<node*, std::vector<node*>, decltype(older)> leaves(older);
  std::vector<node*> stack{root_.get()};
  while (!stack.empty()) {
    node* n = stack.back();
    stack.pop_back();
    if (n != root_.get() && n->children.empty() && n != keep) leaves.push(n);
    for (auto& [first, child] : n->children) stack.push_back(child.get());
  }
  while (num_tokens_ > target && !leaves.empty()) {
    node* leaf = leaves.top();
    leaves.pop();
    node* parent = leaf->parent;
    num_tokens_ -= leaf->edge.size();
    parent->children.erase(leaf->edge.front());  // frees `leaf`
    if (parent != root_.get() && parent->children.empty() && parent != keep) leaves.push(parent);
  }
}

void prefix_tree::clear() {
  root_->children.clear();
  num_tokens_ = 0;
}

}  // namespace pagedserve::routing
