// SPDX-License-Identifier: BSD-2-Clause

/* Homa sockets: creation, ports, shutdown, destruction. */

#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>

#include "homa_impl.h"
#include "homa_peer.h"
#include "homa_pool.h"
#include "homa_rpc.h"
#include "homa_sock.h"

static inline u32 homa_port_hash(u16 port)
{
	return port & (HOMA_SOCKTAB_BUCKETS - 1);
}

/* Caller holds homa->port_lock. */
static struct homa_sock *homa_port_owner(struct homa *homa, struct net *net,
					 u16 port)
{
	struct homa_sock *hsk;

	lockdep_assert_held(&homa->port_lock);
	hlist_for_each_entry(hsk, &homa->port_buckets[homa_port_hash(port)],
			     port_links) {
		if (hsk->port == port && net_eq(sock_net(&hsk->inet.sk), net))
			return hsk;
	}
	return NULL;
}

/*
 * sk_write_space of Homa sockets: send memory came back, an RPC's charge
 * (homa_rpc_wmem_charge()'s, given back when the RPC is freed) or a
 * transmitted skb's (sock_wfree()).
 * Writers are woken only if one waits for budget or poll() was told the
 * socket is not writable (@wmem_wanted), and at least half the budget is
 * free: recvmsg sleeps on the same queue, and the generic
 * sock_def_write_space() would wake every receiving thread for every
 * packet sent. Called with the charge already given back; no lock held.
 */
static void homa_sock_write_space(struct sock *sk)
{
	struct homa_sock *hsk = homa_sk(sk);
	struct socket_wq *wq;

	/* Pairs with the barrier in prepare_to_wait() (homa_sock_wait_wmem())
	 * between setting @wmem_wanted and reading sk_wmem_alloc.
	 */
	smp_mb();
	if (!READ_ONCE(hsk->wmem_wanted) || !sock_writeable(sk))
		return;
	WRITE_ONCE(hsk->wmem_wanted, false);
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	sk_wake_async_rcu(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

/**
 * homa_sock_init() - set up the Homa part of a new socket and give it an
 * automatic port (at or above HOMA_MIN_DEFAULT_PORT).
 * @hsk:  the socket; the generic parts are initialised already.
 * @homa: the protocol state.
 *
 * Return: 0, or -EADDRNOTAVAIL when every automatic port is taken.
 */
int homa_sock_init(struct homa_sock *hsk, struct homa *homa)
{
	struct net *net = sock_net(&hsk->inet.sk);
	u32 tries, port;
	int i;

	spin_lock_init(&hsk->lock);
	hsk->homa = homa;
	hsk->hnet = homa_net(net);
	hsk->shutdown = false;
	hsk->in_table = false;
	hsk->next_client_id = get_random_u64() & ~1ULL;
	if (!hsk->next_client_id)
		hsk->next_client_id = 2;
	hsk->ip_header_length = homa_sock_is_v6(hsk) ?
				sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	INIT_HLIST_NODE(&hsk->port_links);
	INIT_LIST_HEAD(&hsk->active_rpcs);
	INIT_LIST_HEAD(&hsk->dead_rpcs);
	for (i = 0; i < HOMA_TIMER_SLOTS; i++)
		INIT_LIST_HEAD(&hsk->timer_wheel[i]);
	hsk->wheel_tick = homa_ticks_now();
	hsk->dead_count = 0;
	init_waitqueue_head(&hsk->recv_wait);
	INIT_LIST_HEAD(&hsk->ready_requests);
	INIT_LIST_HEAD(&hsk->ready_responses);
	INIT_LIST_HEAD(&hsk->waiting_for_bufs);
	hsk->server_rpcs = 0;
	hsk->wmem_wanted = false;
	for (i = 0; i < HOMA_PEER_LOAD_BUCKETS; i++)
		INIT_HLIST_HEAD(&hsk->peer_loads[i]);
	for (i = 0; i < HOMA_RPC_BUCKETS; i++) {
		INIT_HLIST_HEAD(&hsk->client_buckets[i]);
		INIT_HLIST_HEAD(&hsk->server_buckets[i]);
	}
	homa_pool_init(&hsk->pool);
	hsk->inet.sk.sk_write_space = homa_sock_write_space;
	/* See HOMA_DEFAULT_SNDBUF; SO_SNDBUF may change it later. */
	WRITE_ONCE(hsk->inet.sk.sk_sndbuf, HOMA_DEFAULT_SNDBUF);
	/* See HOMA_DEFAULT_RCVBUF; SO_RCVBUF may change it later. */
	WRITE_ONCE(hsk->inet.sk.sk_rcvbuf, HOMA_DEFAULT_RCVBUF);

	spin_lock_bh(&homa->port_lock);
	for (tries = 0; tries < 0x10000 - HOMA_MIN_DEFAULT_PORT; tries++) {
		port = homa->next_client_port;
		homa->next_client_port++;
		if (homa->next_client_port > 0xffff)
			homa->next_client_port = HOMA_MIN_DEFAULT_PORT;
		if (!homa_port_owner(homa, net, port))
			break;
	}
	if (tries >= 0x10000 - HOMA_MIN_DEFAULT_PORT) {
		spin_unlock_bh(&homa->port_lock);
		return -EADDRNOTAVAIL;
	}
	hsk->port = port;
	hsk->inet.inet_num = port;
	hsk->inet.inet_sport = htons(port);
	hlist_add_head(&hsk->port_links,
		       &homa->port_buckets[homa_port_hash(port)]);
	hsk->in_table = true;
	spin_unlock_bh(&homa->port_lock);
	return 0;
}

/**
 * homa_sock_bind() - give a socket a server port; its previous port (bound
 * or automatic) is released. One port space serves IPv4 and IPv6.
 * @hsk:  the socket.
 * @port: the port; 0 keeps the current port.
 *
 * A socket with live RPCs keeps its port: their packets carry it, and the
 * peers drop packets from any other port (a client matches the server's
 * port, a server the client's), so moving it would strand every one of
 * them. Like a second bind() of a UDP socket, that is -EINVAL.
 *
 * Return: 0, -EINVAL for automatic-range ports or a socket with live RPCs,
 * -EADDRINUSE if another socket has @port, -ESHUTDOWN after shutdown.
 */
int homa_sock_bind(struct homa_sock *hsk, u16 port)
{
	struct homa *homa = hsk->homa;
	struct homa_sock *owner;
	int result = 0;

	if (port == 0)
		return 0;
	if (port >= HOMA_MIN_DEFAULT_PORT)
		return -EINVAL;
	/* hsk->lock before port_lock (homa_impl.h): RPCs are created under
	 * hsk->lock, so none can appear while the port changes.
	 */
	spin_lock_bh(&hsk->lock);
	spin_lock(&homa->port_lock);
	if (hsk->shutdown || !hsk->in_table) {
		result = -ESHUTDOWN;
		goto done;
	}
	owner = homa_port_owner(homa, sock_net(&hsk->inet.sk), port);
	if (owner) {
		if (owner != hsk)
			result = -EADDRINUSE;
		goto done;
	}
	if (!list_empty(&hsk->active_rpcs)) {
		result = -EINVAL;
		goto done;
	}
	hlist_del(&hsk->port_links);
	hsk->port = port;
	hsk->inet.inet_num = port;
	hsk->inet.inet_sport = htons(port);
	hlist_add_head(&hsk->port_links,
		       &homa->port_buckets[homa_port_hash(port)]);
done:
	spin_unlock(&homa->port_lock);
	spin_unlock_bh(&hsk->lock);
	return result;
}

/**
 * homa_sock_wait_wmem() - wait until the socket may start another outgoing
 * message (homa_sock_wmem_ok()), as UDP's sock_alloc_send_pskb() does.
 * @hsk:         the socket; no lock held.
 * @nonblocking: MSG_DONTWAIT: do not wait at all.
 *
 * Dead RPCs still hold their charge, so they are reaped first. The wait
 * ends when RPCs are freed (homa_rpc_free_mem()), after SO_SNDTIMEO,
 * on a signal or on shutdown.
 *
 * Return: 0, -EAGAIN (MSG_DONTWAIT or SO_SNDTIMEO expired), -EINTR or
 * -ERESTARTSYS (signal), -ESHUTDOWN.
 */
int homa_sock_wait_wmem(struct homa_sock *hsk, bool nonblocking)
{
	struct sock *sk = &hsk->inet.sk;
	long timeo = sock_sndtimeo(sk, nonblocking);
	DEFINE_WAIT(wait);
	long chunk, left;

	for (;;) {
		if (READ_ONCE(hsk->shutdown))
			return -ESHUTDOWN;
		if (homa_sock_wmem_ok(hsk))
			return 0;
		if (READ_ONCE(hsk->dead_count) > 0 &&
		    homa_rpc_reap(hsk, INT_MAX) > 0)
			continue;
		if (!timeo)
			return -EAGAIN;
		if (signal_pending(current))
			return sock_intr_errno(timeo);
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		WRITE_ONCE(hsk->wmem_wanted, true);
		prepare_to_wait(sk_sleep(sk), &wait, TASK_INTERRUPTIBLE);
		/* A dead RPC that a kernel thread held a moment ago frees
		 * its charge only when reaped: look again soon.
		 */
		chunk = READ_ONCE(hsk->dead_count) > 0 ? min(timeo, 1L) : timeo;
		left = chunk;
		if (!homa_sock_wmem_ok(hsk) && !READ_ONCE(hsk->shutdown))
			left = schedule_timeout(chunk);
		finish_wait(sk_sleep(sk), &wait);
		if (timeo != MAX_SCHEDULE_TIMEOUT)
			timeo -= chunk - left;
	}
}

/**
 * homa_sock_find() - the socket that owns a port.
 * @homa: the protocol state.
 * @net:  network namespace of the packet.
 * @port: the port.
 *
 * Return: the socket with a reference (release with sock_put()), or NULL.
 */
struct homa_sock *homa_sock_find(struct homa *homa, struct net *net, u16 port)
{
	struct homa_sock *hsk;

	spin_lock_bh(&homa->port_lock);
	hsk = homa_port_owner(homa, net, port);
	if (hsk)
		sock_hold(&hsk->inet.sk);
	spin_unlock_bh(&homa->port_lock);
	return hsk;
}

/**
 * homa_sock_collect() - references to every socket, for the timer thread.
 * @homa: the protocol state.
 * @out:  set to a kmalloc'ed array of sockets, each held with sock_hold();
 *        the caller releases each and frees the array.
 *
 * Return: the number of sockets in *@out (0 with *@out NULL if none).
 */
int homa_sock_collect(struct homa *homa, struct homa_sock ***out)
{
	struct homa_sock **array;
	struct homa_sock *hsk;
	int count = 0, n = 0, i;

	*out = NULL;
	spin_lock_bh(&homa->port_lock);
	for (i = 0; i < HOMA_SOCKTAB_BUCKETS; i++)
		hlist_for_each_entry(hsk, &homa->port_buckets[i], port_links)
			count++;
	spin_unlock_bh(&homa->port_lock);
	if (count == 0)
		return 0;

	/* Leave room for sockets created meanwhile; later ones wait. */
	count += 16;
	array = kmalloc_array(count, sizeof(*array), GFP_KERNEL);
	if (!array)
		return 0;
	spin_lock_bh(&homa->port_lock);
	for (i = 0; i < HOMA_SOCKTAB_BUCKETS; i++) {
		hlist_for_each_entry(hsk, &homa->port_buckets[i], port_links) {
			if (n >= count)
				break;
			sock_hold(&hsk->inet.sk);
			array[n++] = hsk;
		}
	}
	spin_unlock_bh(&homa->port_lock);
	*out = array;
	return n;
}

/**
 * homa_sock_shutdown() - stop all activity on a socket: release its port,
 * end its RPCs and wake every thread blocked on it. Idempotent.
 * @hsk: the socket.
 */
void homa_sock_shutdown(struct homa_sock *hsk)
{
	struct homa *homa = hsk->homa;
	struct homa_rpc *rpc, *tmp;

	spin_lock_bh(&homa->port_lock);
	if (hsk->in_table) {
		hlist_del_init(&hsk->port_links);
		hsk->in_table = false;
	}
	spin_unlock_bh(&homa->port_lock);

	spin_lock_bh(&hsk->lock);
	hsk->shutdown = true;
	list_for_each_entry_safe(rpc, tmp, &hsk->active_rpcs, active_links)
		homa_rpc_end(rpc);
	spin_unlock_bh(&hsk->lock);

	homa_sock_wake_all_receivers(hsk);
	hsk->inet.sk.sk_data_ready(&hsk->inet.sk);
	homa_rpc_reap(hsk, INT_MAX);
}

/**
 * homa_sock_destroy() - release everything a socket holds. Called once,
 * when the socket is closed; no system call can be running on it then.
 * @hsk: the socket.
 */
void homa_sock_destroy(struct homa_sock *hsk)
{
	void *pool_mem;

	if (!hsk->homa || hsk->destroyed)
		return;
	homa_sock_shutdown(hsk);

	/* Kernel threads may still hold references to dead RPCs for a
	 * moment; wait for them.
	 */
	for (;;) {
		homa_rpc_reap(hsk, INT_MAX);
		spin_lock_bh(&hsk->lock);
		if (list_empty(&hsk->dead_rpcs)) {
			spin_unlock_bh(&hsk->lock);
			break;
		}
		spin_unlock_bh(&hsk->lock);
		schedule_timeout_uninterruptible(1);
	}

	spin_lock_bh(&hsk->lock);
	pool_mem = homa_pool_detach(&hsk->pool);
	hsk->destroyed = true;
	spin_unlock_bh(&hsk->lock);
	kvfree(pool_mem);
	/* hsk->homa stays valid: packets and threads that found the socket
	 * before it left the port table may still look at it.
	 */
}
